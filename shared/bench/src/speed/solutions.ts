// Verify's real solutions, solved in bulk before the runs that spend them: challenges issued
// with the key ring the verify service derives from the internal secret (what POST /challenge
// does, without a round trip each) and solved in this process with Node's synchronous SHA-256.
import { createHash } from "node:crypto";
import { formatSolution, fromBase64Url, leadingZeroBits, puzzleInput, seedInput } from "@sift/challenge";
import { signingSecretRing, issueChallenge } from "@sift/challenge/server";
import { systemClock } from "@sift/runtime";

const sha256 = (data: Uint8Array): Uint8Array => createHash("sha256").update(data).digest();

export class SolutionPool {
  readonly #issue: () => ReturnType<typeof issueChallenge>;
  readonly #difficulty: number;
  readonly #ready: string[] = [];
  #handedOut = 0;

  /** `difficulty` and `ttlMs` must be what the configuration says (the bench sets both). */
  constructor(options: {
    internalSecret: string;
    configId: string;
    difficulty: number;
    puzzles: number;
    ttlMs: number;
  }) {
    const secrets = signingSecretRing(undefined, options.internalSecret);
    const params = {
      configId: options.configId,
      difficulty: options.difficulty,
      puzzles: options.puzzles,
      ttlMs: options.ttlMs,
    };
    this.#issue = () => issueChallenge(params, { secrets, clock: systemClock });
    this.#difficulty = options.difficulty;
  }

  get handedOut(): number {
    return this.#handedOut;
  }

  /** Solves until at least `count` unspent solutions are ready. */
  ensure(count: number): void {
    while (this.#ready.length < count) this.#ready.push(this.#solve());
  }

  /** An unspent solution (solved now if the pool ran dry, which the runs try never to need). */
  next(): string {
    this.#handedOut++;
    return this.#ready.pop() ?? this.#solve();
  }

  #solve(): string {
    const issued = this.#issue();
    const bytes = fromBase64Url(issued.challenge)!;
    const seed = sha256(seedInput(bytes));
    const counters = Array.from({ length: issued.puzzles }, (_, index) => {
      let counter = 0;
      while (leadingZeroBits(sha256(puzzleInput(seed, index, counter))) < this.#difficulty) counter++;
      return counter;
    });
    return formatSolution(bytes, fromBase64Url(issued.signature)!, counters);
  }
}
