import { z } from "zod";

/** The two kinds of configuration a key belongs to (spec 1). */
export const KeyKind = z.enum(["classify", "challenge"]);
export type KeyKind = z.infer<typeof KeyKind>;
export const Plan = z.enum(["free", "paid"]);
export type Plan = z.infer<typeof Plan>;

/** What a workspace's verdict log keeps of a submission's text (docs/console.md). */
export const PRIVACY_MODES = ["full", "redacted", "none"] as const;
export const PrivacyMode = z.enum(PRIVACY_MODES);
/** Days a workspace keeps its verdict log (0: no log) and the most entries it keeps. */
export const LOG_RETENTION_DAYS = { min: 0, max: 90 } as const;
/** 200,000: room for the console's 100,000-row export; a record is about 1 KB. */
export const LOG_MAX_ENTRIES = { min: 1, max: 200_000 } as const;

/** A workspace's verdict log settings, carried by its key records so the hot path reads no more. */
export const WorkspaceLog = z.object({
  privacy: PrivacyMode,
  retentionDays: z.number().int().min(LOG_RETENTION_DAYS.min).max(LOG_RETENTION_DAYS.max),
  maxEntries: z.number().int().min(LOG_MAX_ENTRIES.min).max(LOG_MAX_ENTRIES.max),
});
export type WorkspaceLog = z.infer<typeof WorkspaceLog>;

/**
 * `redacted` by default: a new workspace's owner sees what each verdict was about without Sift
 * keeping the addresses, numbers and links people typed, and needs no key configured (`full`
 * does). 14 days (issue 28) covers two weekly looks at the review queue; 10,000 entries is the
 * size the console's page budget is measured at.
 */
export const DEFAULT_WORKSPACE_LOG: WorkspaceLog = Object.freeze({
  privacy: "redacted",
  retentionDays: 14,
  maxEntries: 10_000,
});

/**
 * The settings from a workspace hash's or key record's three fields (`logPrivacy`,
 * `logRetentionDays`, `logMaxEntries`): a missing or unreadable field takes its default, so a
 * record written before the log existed reads as the defaults.
 */
export const workspaceLogFrom = (fields: {
  logPrivacy?: string | null | undefined;
  logRetentionDays?: string | number | null | undefined;
  logMaxEntries?: string | number | null | undefined;
}): WorkspaceLog => {
  const privacy = PrivacyMode.safeParse(fields.logPrivacy);
  return {
    privacy: privacy.success ? privacy.data : DEFAULT_WORKSPACE_LOG.privacy,
    retentionDays: bounded(fields.logRetentionDays, LOG_RETENTION_DAYS, DEFAULT_WORKSPACE_LOG.retentionDays),
    maxEntries: bounded(fields.logMaxEntries, LOG_MAX_ENTRIES, DEFAULT_WORKSPACE_LOG.maxEntries),
  };
};

const bounded = (
  value: string | number | null | undefined,
  range: { min: number; max: number },
  fallback: number,
): number => {
  if (value === null || value === undefined || value === "") return fallback;
  const n = Number(value);
  return Number.isInteger(n) && n >= range.min && n <= range.max ? n : fallback;
};

/**
 * An attempt id as the outermost hop Sift controls sets it (HAProxy's `unique-id`, or the
 * gateway's own UUID): plain characters, so it can be logged and stored as is, and at least 8 of
 * them, so it never equals the `1` that spent markers held before attempts existed.
 */
export const AttemptId = z.string().regex(/^[A-Za-z0-9._:-]{8,128}$/);

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
  /**
   * The attempt id (ATTEMPT_HEADER): the same on every resend of one request, by the balancer or
   * the gateway, so a service makes each effect (a spend, a count, a log entry, a report) once
   * per attempt. Signed, so a service port reached directly cannot claim another's attempt.
   * Absent (an identity signed by an older gateway): every copy is its own attempt.
   */
  attempt: AttemptId.optional(),
  key: z.discriminatedUnion("status", [
    z.object({ status: z.literal("missing") }),
    z.object({ status: z.literal("invalid") }),
    z.object({ status: z.literal("test") }),
    /**
     * The key store did not answer (its Redis node down or frozen): verify still checks and
     * spends the solution, then answers `Internal server error`, so that answer, which a site
     * accepts, never leaves the solution unspent (docs/deployment.md, "Spent markers").
     */
    z.object({ status: z.literal("unavailable") }),
    z.object({
      status: z.literal("valid"),
      keyId: z.string(),
      configId: z.string(),
      workspaceId: z.string(),
      kind: KeyKind,
      plan: Plan,
      allowance: z.number().int().nonnegative(),
      /** The workspace's verdict log settings; absent: the defaults (@sift/verdicts settings.ts). */
      log: WorkspaceLog.optional(),
      /**
       * The network (docs/network.md): whether the workspace takes part, and when it was created
       * (only workspaces older than SIFT_NETWORK_MIN_AGE count). Absent: it takes part, age unknown.
       */
      network: z.object({ on: z.boolean(), since: z.number().int().optional() }).optional(),
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
  ...(record.log ? { log: record.log } : {}),
  ...(record.network ? { network: record.network } : {}),
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
/**
 * How long a count, a verdict log entry or a stored report remembers the attempt that made it,
 * so a resend of that attempt makes none again (a spend remembers it for the challenge's life).
 * It must cover the latest resend a balancer can send: HAProxy's shipped config resends up to
 * `retries` 3 times, each after at most `timeout connect` 1 s + `timeout server` 20 s, so the
 * last copy leaves at most 4 × 21 = 84 s after the first; ingress-nginx with
 * `proxy-next-upstream-tries` 2 and its 60 s read time-out, 120 s. Three minutes covers both
 * with room, and costs one small key per classify call for that long (docs/reliability.md).
 */
export const ATTEMPT_MEMORY_MS = 180_000;

/** The attempt id's header (DESIGN.md): set by the outermost hop Sift controls, overwriting a caller's. */
export const ATTEMPT_HEADER = "x-sift-attempt";
export const SIGNATURE_HEADER = "x-sift-signature";
export const REQUEST_ID_HEADER = "x-request-id";
