import { createHmac, timingSafeEqual } from "node:crypto";
import { Identity, IDENTITY_HEADER, SIGNATURE_HEADER } from "@sift/contracts";
import type { Clock } from "./clock.ts";

/** How long a signed identity is accepted: covers clock skew between pods, not replay windows. */
const IDENTITY_MAX_AGE_MS = 60_000;

/**
 * Signs and checks the caller identity the gateway forwards to a service. The header carries
 * base64url JSON; the signature is HMAC-SHA-256 over those exact bytes.
 */
export class IdentitySigner {
  readonly #secret: Buffer;
  constructor(secret: string) {
    if (secret.length < 32) throw new Error("the internal secret must be at least 32 characters");
    this.#secret = Buffer.from(secret);
  }

  headers(identity: Identity): Record<string, string> {
    const encoded = Buffer.from(JSON.stringify(identity)).toString("base64url");
    return { [IDENTITY_HEADER]: encoded, [SIGNATURE_HEADER]: this.#mac(encoded) };
  }

  /** The identity when the headers are present, signed by us, fresh and for `route`; else null. */
  verify(
    headers: Record<string, string | string[] | undefined>,
    route: Identity["route"],
    clock: Clock,
  ): Identity | null {
    const encoded = headers[IDENTITY_HEADER];
    const signature = headers[SIGNATURE_HEADER];
    if (typeof encoded !== "string" || typeof signature !== "string") return null;
    const expected = Buffer.from(this.#mac(encoded));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    let parsed;
    try {
      parsed = Identity.safeParse(JSON.parse(Buffer.from(encoded, "base64url").toString()));
    } catch {
      return null;
    }
    if (!parsed.success || parsed.data.route !== route) return null;
    if (Math.abs(clock.now() - parsed.data.iat) > IDENTITY_MAX_AGE_MS) return null;
    return parsed.data;
  }

  #mac(data: string): string {
    return createHmac("sha256", this.#secret).update(data).digest("base64url");
  }
}
