import { z } from "zod";

/** The two kinds of configuration a key belongs to (spec 1). */
export const KeyKind = z.enum(["classify", "challenge"]);
export type KeyKind = z.infer<typeof KeyKind>;
export const Plan = z.enum(["free", "paid"]);
export type Plan = z.infer<typeof Plan>;

/**
 * What the gateway learned about the caller's key, forwarded to a service in a header signed
 * with the internal secret. `status` lets the verify service apply the spec's message order
 * itself (a missing solution is reported before an invalid key).
 */
export const Identity = z.object({
  requestId: z.string().min(1).max(128),
  /** Issued-at, ms since epoch: a signed identity is refused once it is older than a minute. */
  iat: z.number().int(),
  /**
   * The route (an endpoint table's name) the identity was signed for, so one signed header
   * cannot be replayed elsewhere. Any name: the signature proves the gateway wrote it, and the
   * service compares it with its own endpoint's.
   */
  route: z.string().min(1).max(64),
  /**
   * The caller's address as the gateway saw it (after its trust-proxy rule), for per-address
   * decisions behind it (adaptive challenge difficulty). Signed, so a service never has to trust
   * an `X-Forwarded-For` header that a direct caller could write.
   */
  client: z.string().max(128).optional(),
  key: z.discriminatedUnion("status", [
    z.object({ status: z.literal("missing") }),
    z.object({ status: z.literal("invalid") }),
    z.object({ status: z.literal("test") }),
    z.object({
      status: z.literal("valid"),
      keyId: z.string(),
      configId: z.string(),
      workspaceId: z.string(),
      kind: KeyKind,
      plan: Plan,
      allowance: z.number().int().nonnegative(),
    }),
  ]),
});
export type Identity = z.infer<typeof Identity>;
export type ResolvedKey = Extract<Identity["key"], { status: "valid" }>;

/**
 * The key part of an identity, from a key record as the key store resolves it: only these fields
 * travel, whatever else the record holds.
 */
export const resolvedKey = (record: Omit<ResolvedKey, "status">): ResolvedKey => ({
  status: "valid",
  keyId: record.keyId,
  configId: record.configId,
  workspaceId: record.workspaceId,
  kind: record.kind,
  plan: record.plan,
  allowance: record.allowance,
});

/** The identity the gateway signs for one call of `route`, issued now (`client`: the caller's address). */
export const identityFor = (
  route: string,
  requestId: string,
  now: number,
  key: Identity["key"],
  client?: string,
): Identity => ({
  requestId,
  iat: now,
  route,
  ...(client === undefined ? {} : { client: client.slice(0, 128) }),
  key,
});

export const IDENTITY_HEADER = "x-sift-identity";
export const SIGNATURE_HEADER = "x-sift-signature";
export const REQUEST_ID_HEADER = "x-request-id";
