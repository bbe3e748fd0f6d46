import { createHash, randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { ConsoleStore, type ConsoleStoreDeps } from "./store.ts";

/**
 * A second factor at sign-in (issue 41): TOTP (RFC 6238: 6 digits, 30 s, SHA-1, the setting every
 * authenticator app reads) through `otpauth`, and ten one-time recovery codes. The TOTP secret has
 * to be read back to check a code, so it is kept as is in the user's Redis hash (as the password
 * hash is); recovery codes are kept only as SHA-256 hashes (each is 80 random bits: no slow hash
 * needed) and each works once. A code's time step is remembered, so a code seen once (read over a
 * shoulder, replayed) is refused for the rest of its window. Workspaces that ask every member for
 * a second factor are flagged here too.
 */
export const RECOVERY_CODES = 10;
/** Steps either side of now a code is accepted at: a phone's clock 30 s off still signs in. */
const WINDOW = 1;
/** A sign-in waiting for its code, and an enrollment waiting for its first code. */
const STEP_TTL_S = 5 * 60;
const ENROLL_TTL_S = 15 * 60;

/** KEYS: the TOTP hash; ARGV: the step. Takes the step if it is newer than the last one used. */
const TAKE_STEP = `
local last = tonumber(redis.call('HGET', KEYS[1], 'lastStep') or '-1')
if tonumber(ARGV[1]) <= last then return 0 end
redis.call('HSET', KEYS[1], 'lastStep', ARGV[1])
return 1
`;

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
const digitsOnly = (code: string): string => code.replace(/[\s-]/g, "");
const totp = (secret: string, label = "") =>
  new TOTP({ issuer: "Sift", label, secret: Secret.fromBase32(secret), digits: 6, period: 30 });

export interface PendingSignIn {
  userId: string;
  /** Where sign-in goes after (domain/resume.ts): the page asked for and a kept form. */
  back: { next?: string; action?: string; resume?: string };
}

export class SecondFactorStore extends ConsoleStore {
  readonly #prefix: string;

  constructor(deps: ConsoleStoreDeps) {
    super(deps);
    this.#prefix = deps.prefix ?? "sift:console:";
  }

  #totpKey = (userId: string) => `${this.#prefix}totp:{${userId}}`;
  #enrollKey = (userId: string) => `${this.#prefix}totp-enroll:{${userId}}`;
  #recoveryKey = (userId: string) => `${this.#prefix}totp-recovery:{${userId}}`;
  #stepKey = (tokenHash: string) => `${this.#prefix}signin-step:${tokenHash}`;

  async enabled(userId: string): Promise<boolean> {
    return (await this.redis.hexists(this.#totpKey(userId), "secret")) === 1;
  }

  /** A new secret to add to an authenticator app: its base32 text and otpauth:// address. */
  async beginEnrollment(userId: string, email: string): Promise<{ secret: string; uri: string }> {
    let secret = await this.redis.get(this.#enrollKey(userId));
    if (!secret) {
      secret = new Secret({ size: 20 }).base32;
      await this.redis.set(this.#enrollKey(userId), secret, "EX", ENROLL_TTL_S);
    }
    return { secret, uri: totp(secret, email).toString() };
  }

  /** The enrollment confirmed by a code from the app: TOTP on, and the recovery codes (shown once). */
  async confirmEnrollment(userId: string, code: string): Promise<string[] | null> {
    const secret = await this.redis.get(this.#enrollKey(userId));
    if (!secret) return null;
    const delta = totp(secret).validate({
      token: digitsOnly(code),
      timestamp: this.clock.now(),
      window: WINDOW,
    });
    if (delta === null) return null;
    const codes = Array.from({ length: RECOVERY_CODES }, () => {
      const hex = randomBytes(10).toString("hex");
      return `${hex.slice(0, 5)}-${hex.slice(5, 10)}-${hex.slice(10, 15)}-${hex.slice(15)}`;
    });
    const step = Math.floor(this.clock.now() / 30_000) + delta;
    await this.redis
      .multi()
      .del(this.#totpKey(userId), this.#recoveryKey(userId), this.#enrollKey(userId))
      .hset(this.#totpKey(userId), { secret, lastStep: String(step), enabledAt: String(this.clock.now()) })
      .sadd(this.#recoveryKey(userId), ...codes.map((c) => sha256(c)))
      .exec();
    return codes;
  }

  /** A code from the app (each time step once) or a recovery code (each once). */
  async check(userId: string, code: string): Promise<"totp" | "recovery" | null> {
    const text = digitsOnly(code);
    if (/^\d{6}$/.test(text)) {
      const secret = await this.redis.hget(this.#totpKey(userId), "secret");
      if (!secret) return null;
      const delta = totp(secret).validate({ token: text, timestamp: this.clock.now(), window: WINDOW });
      if (delta === null) return null;
      const step = Math.floor(this.clock.now() / 30_000) + delta;
      const taken = await this.redis.eval(TAKE_STEP, 1, this.#totpKey(userId), String(step));
      return taken === 1 ? "totp" : null;
    }
    if (!/^[0-9a-f]{20}$/.test(text.toLowerCase())) return null;
    const hex = text.toLowerCase();
    const formatted = `${hex.slice(0, 5)}-${hex.slice(5, 10)}-${hex.slice(10, 15)}-${hex.slice(15)}`;
    return (await this.redis.srem(this.#recoveryKey(userId), sha256(formatted))) === 1 ? "recovery" : null;
  }

  async recoveryLeft(userId: string): Promise<number> {
    return this.redis.scard(this.#recoveryKey(userId));
  }

  async disable(userId: string): Promise<void> {
    await this.redis.del(this.#totpKey(userId), this.#recoveryKey(userId), this.#enrollKey(userId));
  }

  /** A password accepted, the code still to come: a token for the browser, the rest in Redis. */
  async startSignIn(pending: PendingSignIn): Promise<string> {
    const token = randomBytes(24).toString("base64url");
    await this.redis.set(this.#stepKey(sha256(token)), JSON.stringify(pending), "EX", STEP_TTL_S);
    return token;
  }

  async pendingSignIn(token: string): Promise<PendingSignIn | null> {
    const text = token ? await this.redis.get(this.#stepKey(sha256(token))) : null;
    return text ? (JSON.parse(text) as PendingSignIn) : null;
  }

  async endSignIn(token: string): Promise<void> {
    await this.redis.del(this.#stepKey(sha256(token)));
  }

  async requiredIn(workspaceId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.workspaceSecondFactor(workspaceId))) === 1;
  }

  async setRequired(workspaceId: string, required: boolean): Promise<void> {
    if (required) await this.redis.set(this.keys.workspaceSecondFactor(workspaceId), "1");
    else await this.redis.del(this.keys.workspaceSecondFactor(workspaceId));
  }
}
