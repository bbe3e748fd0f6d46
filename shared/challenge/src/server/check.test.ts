import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ManualClock, MINUTE } from "@sift/runtime";
import { fromBase64Url, toBase64Url } from "../bytes.ts";
import { leadingZeroBits, puzzleInput, seedInput } from "../pow.ts";
import { formatSolution, parseSolution } from "../solution.ts";
import { solveChallenge } from "../solver.ts";
import { checkSolution, type CheckResult } from "./check.ts";
import { SigningSecretRing } from "./signing-secrets.ts";
import { issueChallenge } from "./sign.ts";

const secret = "a-test-signing-secret-of-32-chars!";
const secrets = new SigningSecretRing([{ id: "k1", secret, notBefore: 0 }]);
const params = { configId: "cfg_A", difficulty: 6, puzzles: 4, ttlMs: 10 * MINUTE };

const solvedAt = async (
  clock: ManualClock,
  ring = secrets,
  overrides: Partial<typeof params> = {},
): Promise<string> => solveChallenge(issueChallenge({ ...params, ...overrides }, { secrets: ring, clock }));

const check = (solution: string, clock: ManualClock, configId = "cfg_A", ring = secrets): CheckResult =>
  checkSolution({ solution, configId, secrets: ring, now: clock.now() });

const reason = (result: CheckResult) => (result.ok ? "ok" : result.reason);

/** Rewrites one part of a solution (0 version, 1 challenge, 2 signature, 3 proof). */
const withPart = (solution: string, index: number, change: (part: string) => string): string =>
  solution
    .split(".")
    .map((part, i) => (i === index ? change(part) : part))
    .join(".");

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest();

describe("checkSolution", () => {
  it("accepts a solved challenge and names it by its signature, living as long as the challenge", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    clock.advance(MINUTE);
    const result = check(solution, clock);
    expect(result).toMatchObject({ ok: true, spendId: solution.split(".")[2], remainingMs: 9 * MINUTE });
  });

  it("answers invalidSolutionLength for any part count but four", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    expect(reason(check(solution.split(".").slice(0, 3).join("."), clock))).toBe("invalidSolutionLength");
    expect(reason(check(`${solution}.x`, clock))).toBe("invalidSolutionLength");
    expect(reason(check("nok", clock))).toBe("invalidSolutionLength");
    expect(reason(check("", clock))).toBe("invalidSolutionLength");
  });

  it("answers invalidSolution for parts that do not decode", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    expect(
      reason(
        check(
          withPart(solution, 0, () => "2"),
          clock,
        ),
      ),
    ).toBe("invalidSolution");
    expect(
      reason(
        check(
          withPart(solution, 1, (p) => `${p}!`),
          clock,
        ),
      ),
    ).toBe("invalidSolution");
    expect(
      reason(
        check(
          withPart(solution, 1, (p) => p.slice(0, -4)),
          clock,
        ),
      ),
    ).toBe("invalidSolution");
    expect(
      reason(
        check(
          withPart(solution, 2, (p) => p.slice(0, -4)),
          clock,
        ),
      ),
    ).toBe("invalidSolution");
    expect(
      reason(
        check(
          withPart(solution, 3, (p) => `${p}AAAAAA`),
          clock,
        ),
      ),
    ).toBe("invalidSolution");
    expect(reason(check("...", clock))).toBe("invalidSolution");
  });

  it("answers invalidSignature for a changed signature, a changed challenge or an unknown key", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    const flip = (part: string, at: number) => {
      const bytes = fromBase64Url(part)!;
      bytes[at]! ^= 1;
      return toBase64Url(bytes);
    };
    expect(
      reason(
        check(
          withPart(solution, 2, (p) => flip(p, 31)),
          clock,
        ),
      ),
    ).toBe("invalidSignature");
    // Byte 3 is inside the key id "k1": a challenge naming key "k0" no ring knows.
    expect(
      reason(
        check(
          withPart(solution, 1, (p) => flip(p, 3)),
          clock,
        ),
      ),
    ).toBe("invalidSignature");
    const other = new SigningSecretRing([{ id: "k1", secret: `${secret}-other`, notBefore: 0 }]);
    expect(reason(check(solution, clock, "cfg_A", other))).toBe("invalidSignature");
  });

  it("answers mismatchingKeys for a challenge issued to another configuration", async () => {
    const clock = new ManualClock();
    expect(reason(check(await solvedAt(clock), clock, "cfg_B"))).toBe("mismatchingKeys");
  });

  it("answers expired from the challenge's expiry on, not a millisecond before", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    clock.advance(10 * MINUTE - 1);
    expect(reason(check(solution, clock))).toBe("ok");
    clock.advance(1);
    expect(reason(check(solution, clock))).toBe("expired");
  });

  it("answers invalidSolution for a proof that does not meet the difficulty", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    const parsed = parseSolution(solution);
    if (!parsed.ok) throw new Error("setup");
    const { challengeBytes, signature, counters } = parsed.solution;
    const seed = sha256(seedInput(challengeBytes));
    let wrong = counters[2]! + 1;
    while (leadingZeroBits(sha256(puzzleInput(seed, 2, wrong))) >= params.difficulty) wrong++;
    const forged = formatSolution(challengeBytes, signature, counters.with(2, wrong));
    expect(reason(check(forged, clock))).toBe("invalidSolution");
  });

  it("checks in DESIGN.md's order when several checks fail", async () => {
    const clock = new ManualClock();
    const solution = await solvedAt(clock);
    const badProof = withPart(solution, 3, (p) =>
      toBase64Url(new Uint8Array(fromBase64Url(p)!.length).fill(0xff)),
    );
    clock.advance(11 * MINUTE);
    // expired + wrong proof → expired; + other configuration → mismatching; + bad signature → signature
    expect(reason(check(badProof, clock))).toBe("expired");
    expect(reason(check(badProof, clock, "cfg_B"))).toBe("mismatchingKeys");
    const badSignature = withPart(badProof, 2, () => toBase64Url(new Uint8Array(32)));
    expect(reason(check(badSignature, clock, "cfg_B"))).toBe("invalidSignature");
  });
});

describe("signing key rotation", () => {
  it("verifies a challenge of the previous key during the overlap and answers invalidSignature after", async () => {
    const rotateAt = Date.UTC(2026, 0, 1, 12);
    const ring = new SigningSecretRing(
      [
        { id: "old", secret, notBefore: 0 },
        { id: "new", secret: `${secret}-new`, notBefore: rotateAt },
      ],
      15 * MINUTE,
    );
    const clock = new ManualClock(rotateAt - MINUTE);
    const oldSolution = await solvedAt(clock, ring, { ttlMs: 60 * MINUTE });
    const life = { ttlMs: 60 * MINUTE };
    clock.set(rotateAt + MINUTE);
    const newSolution = await solvedAt(clock, ring, life);
    expect(parseSolution(newSolution)).toMatchObject({
      ok: true,
      solution: { challenge: { secretId: "new" } },
    });
    expect(reason(check(oldSolution, clock, "cfg_A", ring))).toBe("ok");
    clock.set(rotateAt + 15 * MINUTE - 1);
    expect(reason(check(oldSolution, clock, "cfg_A", ring))).toBe("ok");
    clock.set(rotateAt + 15 * MINUTE);
    expect(reason(check(oldSolution, clock, "cfg_A", ring))).toBe("invalidSignature");
    expect(reason(check(newSolution, clock, "cfg_A", ring))).toBe("ok");
  });
});
