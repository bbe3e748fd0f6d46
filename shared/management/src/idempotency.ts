import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes } from "node:crypto";
import { ManagementMessage } from "@sift/contracts";
import { redisLayout } from "@sift/keystore";
import type { RedisClient } from "@sift/runtime";
import { fail, type Answer, type Caller } from "./context.ts";

/** DESIGN: a resend within 24 h gets the first answer. */
export const IDEMPOTENCY_MS = 24 * 60 * 60 * 1000;
/**
 * How long a second call waits for the first one's answer before it is told to retry: longer
 * than any single operation takes (a batch of 1,000 included), short of a client's time-out.
 */
const WAIT_MS = 15_000;
const POLL_MS = 20;

/**
 * `Idempotency-Key` (DESIGN, "idempotency"), after issue 45's attempt id: the first call with a
 * key claims it (SET NX) with the hash of its request; a resend of the same request gets the
 * stored answer, another request with the key a 422, and a call arriving while the first still
 * runs waits for its answer, so two at once run once. An answer of 500 or more is not kept (the
 * claim is dropped): the resend runs again, as a retry should.
 *
 * The stored answer can hold a created secret, and Sift stores secrets only as hashes: so it is
 * sealed with AES-256-GCM under a key derived from the caller's token and the idempotency key,
 * which Redis never holds. Only a caller presenting the same token can open it; a dump of Redis
 * reads nothing.
 */
export class IdempotencyStore {
  readonly #redis: RedisClient;
  readonly #layout: ReturnType<typeof redisLayout>;

  constructor(deps: { redis: RedisClient; prefix?: string }) {
    this.#redis = deps.redis;
    this.#layout = redisLayout(deps.prefix);
  }

  async run(caller: Caller, key: string, request: string, act: () => Promise<Answer>): Promise<Answer> {
    const name = this.#layout.idempotency(caller.token.tokenId, hash("sha256", key, "hex"));
    const requestHash = hash("sha256", request, "hex");
    // A wait, not a time of the domain: the monotonic clock, whatever the injected one says.
    const deadline = performance.now() + WAIT_MS;
    for (;;) {
      const claimed = await this.#redis.set(name, `running:${requestHash}`, "PX", IDEMPOTENCY_MS, "NX");
      if (claimed) return this.#first(name, caller, key, requestHash, act);
      const held = await this.#redis.get(name);
      if (held === null) continue; // the first call failed and dropped its claim: run it now
      const [state, heldHash, sealed] = held.split(":");
      if (heldHash !== requestHash)
        return fail("idempotency_mismatch", ManagementMessage.idempotencyMismatch);
      if (state === "done" && sealed) return open(sealed, caller, key);
      if (performance.now() > deadline) return fail("conflict", ManagementMessage.idempotencyBusy);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  async #first(name: string, caller: Caller, key: string, requestHash: string, act: () => Promise<Answer>) {
    let answer: Answer;
    try {
      answer = await act();
    } catch (err) {
      await this.#redis.del(name);
      throw err;
    }
    if (answer.status >= 500) await this.#redis.del(name);
    else await this.#redis.set(name, `done:${requestHash}:${seal(answer, caller, key)}`, "KEEPTTL");
    return answer;
  }
}

const keyFor = (caller: Caller, key: string): Buffer =>
  createHmac("sha256", caller.secret).update(`sift-idempotency\u0000${key}`).digest();

const seal = (answer: Answer, caller: Caller, key: string): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(caller, key), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(answer)), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
};

const open = (sealed: string, caller: Caller, key: string): Answer => {
  const raw = Buffer.from(sealed, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", keyFor(caller, key), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return JSON.parse(
    Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString(),
  ) as Answer;
};
