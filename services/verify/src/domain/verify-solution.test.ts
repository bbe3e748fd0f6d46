import { describe, expect, it } from "vitest";
import { solveChallenge } from "@sift/challenge";
import { issueChallenge, SigningSecretRing } from "@sift/challenge/server";
import { VerifyMessage, type Identity } from "@sift/contracts";
import { ManualClock, MINUTE } from "@sift/runtime";
import { afterSpend, verifySolution } from "./verify-solution.ts";

const signingSecrets = new SigningSecretRing([
  { id: "k1", secret: "a-test-signing-secret-of-32-chars!", notBefore: 0 },
]);
const challengeKey: Identity["key"] = {
  status: "valid",
  keyId: "key_1",
  configId: "cfg_A",
  workspaceId: "ws_1",
  kind: "challenge",
  plan: "free",
  allowance: 1000,
};

describe("verifySolution", () => {
  it("answers in DESIGN.md's order before looking at the solution", () => {
    const now = 0;
    expect(verifySolution({ status: "missing" }, undefined, { signingSecrets, now })).toEqual({
      step: "answer",
      answer: { ok: false, message: VerifyMessage.missingKey },
    });
    expect(verifySolution({ status: "invalid" }, "", { signingSecrets, now })).toEqual({
      step: "answer",
      answer: { ok: false, message: VerifyMessage.missingSolution },
    });
    expect(verifySolution({ status: "invalid" }, "x", { signingSecrets, now })).toEqual({
      step: "answer",
      answer: { ok: false, message: VerifyMessage.invalidKey },
    });
    expect(verifySolution({ ...challengeKey, kind: "classify" }, "x", { signingSecrets, now })).toEqual({
      step: "answer",
      answer: { ok: false, message: VerifyMessage.invalidKey },
    });
  });

  it("asks for the spend only once every check passed, for the challenge's remaining life", async () => {
    const clock = new ManualClock();
    const params = { configId: "cfg_A", difficulty: 4, puzzles: 4, ttlMs: 10 * MINUTE };
    const solution = await solveChallenge(issueChallenge(params, { secrets: signingSecrets, clock }));
    clock.advance(MINUTE);
    const step = verifySolution(challengeKey, solution, { signingSecrets, now: clock.now() });
    expect(step).toMatchObject({ step: "spend", remainingMs: 9 * MINUTE });
    const elsewhere = verifySolution({ ...challengeKey, configId: "cfg_B" }, solution, {
      signingSecrets,
      now: clock.now(),
    });
    expect(elsewhere).toEqual({
      step: "answer",
      answer: { ok: false, message: VerifyMessage.mismatchingKeys },
    });
  });

  it("answers the spend's outcome", () => {
    expect(afterSpend(true)).toEqual({ ok: true });
    expect(afterSpend(false)).toEqual({ ok: false, message: VerifyMessage.spent });
  });

  it("with the key unread, checks the solution, asks for the spend and answers Internal server error, never ok", async () => {
    const clock = new ManualClock();
    const params = { configId: "cfg_A", difficulty: 4, puzzles: 4, ttlMs: 10 * MINUTE };
    const solution = await solveChallenge(issueChallenge(params, { secrets: signingSecrets, clock }));
    const unread = { status: "unavailable" } as const;
    expect(verifySolution(unread, solution, { signingSecrets, now: clock.now() })).toMatchObject({
      step: "spend",
      keyUnread: true,
    });
    // A forged or expired solution is refused as with a key: nothing is spent.
    expect(verifySolution(unread, `${solution}x`, { signingSecrets, now: clock.now() })).toMatchObject({
      step: "answer",
    });
    clock.advance(11 * MINUTE);
    expect(verifySolution(unread, solution, { signingSecrets, now: clock.now() })).toEqual({
      step: "answer",
      answer: { ok: false, message: VerifyMessage.expired },
    });
    expect(afterSpend(true, true)).toEqual({ ok: false, message: VerifyMessage.internal });
    expect(afterSpend(false, true)).toEqual({ ok: false, message: VerifyMessage.spent });
  });
});
