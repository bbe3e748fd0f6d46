import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { parseSolution } from "@sift/challenge";
import { SigningSecretRing } from "@sift/challenge/server";
import { createKey, startStack, type Stack } from "@sift/testkit";
import { ManualClock, MINUTE } from "@sift/runtime";
import { solve, verify } from "./helpers.ts";

const rotateAt = Date.now() + 60 * MINUTE;
const OVERLAP = 20 * MINUTE;
let stack: Stack;
let clock: ManualClock;

beforeAll(async () => {
  clock = new ManualClock(rotateAt - MINUTE);
  const signingSecrets = new SigningSecretRing(
    [
      { id: "old", secret: "old-signing-secret-0123456789abcdef", notBefore: 0 },
      { id: "new", secret: "new-signing-secret-0123456789abcdef", notBefore: rotateAt },
    ],
    OVERLAP,
  );
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    clock,
    signingSecrets,
  });
});
afterAll(() => stack.stop());

describe("challenge signing key rotation through the gateway", () => {
  it("verifies the previous key's challenges during the overlap and answers Invalid signature after", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    // A life longer than the overlap, so only the rotation can refuse the last solution.
    await stack.keystore.updateConfig(key.configId, { challengeTtlMs: 60 * MINUTE });
    const before = await Promise.all([1, 2, 3].map(() => solve(stack.gatewayUrl, key.siteKey!)));
    for (const solution of before) {
      expect(parseSolution(solution)).toMatchObject({
        ok: true,
        solution: { challenge: { secretId: "old" } },
      });
    }

    clock.set(rotateAt + MINUTE);
    const after = await solve(stack.gatewayUrl, key.siteKey!);
    expect(parseSolution(after)).toMatchObject({ ok: true, solution: { challenge: { secretId: "new" } } });
    expect((await verify(stack.gatewayUrl, key.secretKey, before[0]!)).json).toEqual({ ok: true });

    clock.set(rotateAt + OVERLAP - 1);
    expect((await verify(stack.gatewayUrl, key.secretKey, before[1]!)).json).toEqual({ ok: true });

    clock.set(rotateAt + OVERLAP);
    expect((await verify(stack.gatewayUrl, key.secretKey, before[2]!)).json).toEqual({
      ok: false,
      message: VerifyMessage.invalidSignature,
    });
    expect((await verify(stack.gatewayUrl, key.secretKey, after)).json).toEqual({ ok: true });
  });
});
