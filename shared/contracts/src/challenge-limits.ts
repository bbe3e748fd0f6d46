/*
 * The challenge's bounds, in a module that imports nothing: the browser script's solver reads
 * them through `@sift/contracts/challenge-limits`, and importing the package's index would bundle
 * zod into sift.js.
 */

/**
 * A challenge's difficulty: leading zero bits each of its sub-puzzles' hashes needs (each step
 * doubles the work). Bounded here, where the challenge codec (which refuses a challenge asking
 * for more, so a forged one cannot ask a verifier for unbounded work), the keystore (which
 * stores only what passes), the CLI (which parses `--difficulty` with it) and verify (which
 * issues with it) all read it.
 */
export const CHALLENGE_DIFFICULTY = {
  min: 1,
  max: 24,
  /** 8 bits × 16 puzzles: ~0.2 s mean in Chromium at 4× CPU slowdown (docs/challenge.md). */
  default: 8,
} as const;

/**
 * A challenge's life from issue. The maximum is also how long a replaced signing secret keeps
 * verifying, so a life past it would outlive a rotation.
 */
export const CHALLENGE_TTL_MS = {
  min: 1_000,
  max: 60 * 60 * 1000,
  /** DESIGN.md: 10 minutes from issue. */
  default: 10 * 60 * 1000,
} as const;
