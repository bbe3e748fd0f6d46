import { z } from "zod";
import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "./challenge-limits.ts";
import { KeyKind, LOG_MAX_ENTRIES, LOG_RETENTION_DAYS, Plan, PrivacyMode } from "./identity.ts";
import { Languages } from "./languages.ts";
import { STRICTNESS_MODES } from "./messages.ts";

/**
 * The management API's boundary (DESIGN, "Operating many sites"; docs/hosts.md): the error
 * codes, what each call accepts and answers. The gateway's routes (@sift/management) parse with
 * these, the typed client (@sift/client) parses answers with them, and /openapi.json is built
 * from them (management-doc.ts).
 */

/** DESIGN's closed set of codes, each with its status. */
export const MANAGEMENT_ERRORS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 400,
  idempotency_mismatch: 422,
  rate_limited: 429,
} as const;
export type ManagementErrorCode = keyof typeof MANAGEMENT_ERRORS;

export const ManagementError = z.object({
  ok: z.literal(false),
  message: z.string(),
  code: z.enum(Object.keys(MANAGEMENT_ERRORS) as [ManagementErrorCode, ...ManagementErrorCode[]]),
  /** A create whose externalId another workspace holds: that workspace. */
  id: z.string().optional(),
});
export type ManagementError = z.infer<typeof ManagementError>;

/** The texts a caller reads, once. */
export const ManagementMessage = {
  missingToken: "Missing management token: send Authorization: Bearer st_…",
  invalidToken: "Invalid management token (unknown, revoked or expired)",
  readOnly: "This token is read-only",
  operatorOnly: "Only an operator token can do this",
  notFound: "Not found",
  rateLimited: "Too many requests for this token. Retry after a short wait.",
  malformedJson: "Malformed JSON body",
  bodyTooLarge: "Request body is too large",
  idempotencyMismatch: "This Idempotency-Key was used with another request body",
  idempotencyInvalid: "Idempotency-Key must be 1-255 printable characters",
  idempotencyBusy: "A request with this Idempotency-Key is still running; retry shortly",
  externalIdTaken: "A workspace with this externalId exists",
  internal: "Internal server error",
} as const;

/** A host's own id for a site: printable ASCII without spaces, up to 255 characters. */
export const ExternalId = z.string().regex(/^[\x21-\x7e]{1,255}$/, "1-255 printable characters, no spaces");

/**
 * Labels: up to 20 (a site tagged by client, region, tier; each is an index entry in Redis),
 * keys of 1-64 letters, digits, `_ . -`, values of 1-128 characters.
 */
export const LABELS_MAX = 20;
export const LabelKey = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "1-64 letters, digits, _ . -");
export const Labels = z
  .record(LabelKey, z.string().min(1).max(128))
  .refine((labels) => Object.keys(labels).length <= LABELS_MAX, `at most ${LABELS_MAX} labels`);
export type Labels = z.infer<typeof Labels>;

/**
 * A challenge configuration's allowed hosts: exact names or `*.example.com` (any subdomain, not
 * the apex), lowercased; at most 100 (a site's domains and staging hosts).
 */
export const HOSTNAMES_MAX = 100;
const HOST_PATTERN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const Hostname = z
  .string()
  .max(253)
  .transform((h) => h.toLowerCase())
  .pipe(z.string().regex(HOST_PATTERN, "a host name such as shop.example.com or *.example.com"));
export const Hostnames = z.array(Hostname).max(HOSTNAMES_MAX);

/** Whether `host` is allowed by `hostnames` (DESIGN: empty or absent = any host). */
export const hostAllowed = (hostnames: readonly string[] | undefined, host: string): boolean => {
  if (!hostnames || hostnames.length === 0) return true;
  const h = host.toLowerCase();
  return hostnames.some((allowed) =>
    allowed.startsWith("*.") ? h.endsWith(allowed.slice(1)) && h.length > allowed.length - 1 : h === allowed,
  );
};

/** /challenge's 403 for a page on a host its configuration does not list (DESIGN, "hostnames"). */
export const hostNotAllowedMessage = (host: string): string =>
  host === ""
    ? "This site key only serves pages on its listed hosts, and the request named no page (no Origin header)."
    : `This site key is not set up for ${host}: the site's owner can add ${host} to its allowed hostnames.`;

/** The host of an `Origin` header ("" for none, "null" or anything that is not an http(s) origin). */
export const originHost = (origin: unknown): string => {
  if (typeof origin !== "string" || origin.length > 300) return "";
  try {
    const url = new URL(origin);
    return url.protocol === "https:" || url.protocol === "http:" ? url.hostname.toLowerCase() : "";
  } catch {
    return "";
  }
};

const Name = z.string().trim().min(1).max(100);
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const WorkspaceCreate = z.strictObject({
  name: Name,
  plan: Plan,
  allowance: count.optional(),
  externalId: ExternalId.optional(),
  labels: Labels.optional(),
});
export type WorkspaceCreate = z.infer<typeof WorkspaceCreate>;

/**
 * The settings a site's owner chooses for its traffic (DESIGN, "workspace settings through every
 * door"), each door's to change and every workspace view's to answer: where 0.8 sits, whether
 * its reviews teach the deployment's model, whether it takes part in the network, and the
 * languages its visitors write (`[]` = learned from its clean reviews).
 */
export const WorkspaceSettings = z.strictObject({
  strictness: z.enum(STRICTNESS_MODES),
  shareReports: z.boolean(),
  network: z.boolean(),
  languages: Languages,
});
export type WorkspaceSettings = z.infer<typeof WorkspaceSettings>;

/** The fields of `sift workspace set` a workspace keeps itself, and the host's own. */
export const WorkspacePatch = z.strictObject({
  name: Name.optional(),
  plan: Plan.optional(),
  allowance: count.optional(),
  classify: z.boolean().optional(),
  rateLimit: z.number().positive().max(1e9).optional(),
  burst: z.number().int().positive().max(1e6).optional(),
  logPrivacy: PrivacyMode.optional(),
  logRetentionDays: z.number().int().min(LOG_RETENTION_DAYS.min).max(LOG_RETENTION_DAYS.max).optional(),
  logMaxEntries: z.number().int().min(LOG_MAX_ENTRIES.min).max(LOG_MAX_ENTRIES.max).optional(),
  externalId: ExternalId.optional(),
  labels: Labels.optional(),
  ...WorkspaceSettings.partial().shape,
});
export type WorkspacePatch = z.infer<typeof WorkspacePatch>;

export const WorkspaceView = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
  allowance: z.number(),
  classify: z.boolean(),
  externalId: z.string().nullable(),
  labels: z.record(z.string(), z.string()),
  ...WorkspaceSettings.shape,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WorkspaceView = z.infer<typeof WorkspaceView>;

export const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,2000}$/, "a cursor from nextCursor")
    .optional(),
});

export const WorkspaceListQuery = ListQuery.extend({
  q: z.string().min(1).max(100).optional(),
  externalId: ExternalId.optional(),
  plan: Plan.optional(),
  label: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}:.{1,128}$/, "k:v")
    .optional(),
});

const ChallengeSettings = {
  hostnames: Hostnames.optional(),
  difficulty: z.number().int().min(CHALLENGE_DIFFICULTY.min).max(CHALLENGE_DIFFICULTY.max).optional(),
  challengeTtlSeconds: z
    .number()
    .int()
    .min(CHALLENGE_TTL_MS.min / 1000)
    .max(CHALLENGE_TTL_MS.max / 1000)
    .optional(),
  adaptive: z.boolean().optional(),
};

export const ConfigurationCreate = z.strictObject({
  kind: KeyKind,
  name: z.string().trim().min(1).max(100).optional(),
  ...ChallengeSettings,
});
export type ConfigurationCreate = z.infer<typeof ConfigurationCreate>;

export const ConfigurationPatch = z.strictObject({
  name: z.string().trim().min(1).max(100).optional(),
  ...ChallengeSettings,
});
export type ConfigurationPatch = z.infer<typeof ConfigurationPatch>;

export const ConfigurationView = z.object({
  id: z.string(),
  workspaceId: z.string(),
  kind: KeyKind,
  name: z.string().nullable(),
  siteKey: z.string().optional(),
  hostnames: z.array(z.string()).optional(),
  difficulty: z.number().optional(),
  challengeTtlSeconds: z.number().optional(),
  adaptive: z.boolean().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Only in the answer to a create (shown once). */
  secretKey: z.string().optional(),
});
export type ConfigurationView = z.infer<typeof ConfigurationView>;

/** Up to 24 h: a day covers a deploy of every site's servers at the slowest hosts' pace. */
export const ROTATE_GRACE_MAX_SECONDS = 86_400;
export const RotateSecret = z.strictObject({
  graceSeconds: z.number().int().min(0).max(ROTATE_GRACE_MAX_SECONDS).optional(),
});
export const RotatedSecret = z.object({ secretKey: z.string(), previousValidUntil: z.string() });

/**
 * A console member's role in a workspace, least first: a viewer reads, an editor also changes
 * configurations and lists, an owner also manages members (the console's accounts keep them; the
 * `member.*` operations change them).
 */
export const MEMBER_ROLES = ["viewer", "editor", "owner"] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A console account's e-mail as it is kept and looked up: trimmed, lower case. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/u;
/** Whether a (normalised) e-mail can be an account's or an invitation's: 254 characters at most (RFC 5321). */
export const isEmail = (email: string): boolean => email.length <= 254 && EMAIL.test(email);

export const TokenScope = z.enum(["operator", "workspace"]);
export type TokenScope = z.infer<typeof TokenScope>;
/** Up to ten years: longer is "never", which is no expiry at all. */
export const TOKEN_EXPIRY_MAX_SECONDS = 10 * 365 * 86_400;
export const TokenCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    scope: TokenScope,
    workspaceId: z.string().max(64).optional(),
    readOnly: z.boolean().optional(),
    expiresInSeconds: z.number().int().min(1).max(TOKEN_EXPIRY_MAX_SECONDS).optional(),
  })
  .refine((t) => (t.scope === "workspace") === (t.workspaceId !== undefined), {
    message: "workspaceId is required with scope workspace, and only with it",
    path: ["workspaceId"],
  });
export type TokenCreate = z.infer<typeof TokenCreate>;

export const TokenView = z.object({
  tokenId: z.string(),
  name: z.string(),
  scope: TokenScope,
  workspaceId: z.string().nullable(),
  readOnly: z.boolean(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  /** Only in the answer to a create (shown once). */
  token: z.string().optional(),
});
export type TokenView = z.infer<typeof TokenView>;

export const UsageDay = z.object({
  day: z.string(),
  counted: z.number(),
  spam: z.number(),
  clean: z.number(),
  /** Accepted solutions of the workspace's challenge configurations (verify's VerifiedCounter). */
  verified: z.number(),
  verifyFailed: z.number(),
  refused: z.number(),
});
export const UsageView = z.object({
  workspaceId: z.string(),
  state: z.string(),
  used30d: z.number(),
  allowance: z.number(),
  graceEndsAt: z.string().nullable(),
  retryAfter: z.number().nullable(),
  daily: z.array(UsageDay),
});
export type UsageView = z.infer<typeof UsageView>;

export const AuditActor = z.object({ type: z.enum(["token", "user", "cli"]), id: z.string() });
export type AuditActor = z.infer<typeof AuditActor>;
export const AuditEntryView = z.object({
  id: z.string(),
  at: z.string(),
  actor: AuditActor,
  action: z.string(),
  target: z.string(),
  workspaceId: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
});
export type AuditEntryView = z.infer<typeof AuditEntryView>;
export const AuditQuery = ListQuery.extend({
  workspace: z.string().max(64).optional(),
  since: z.iso.datetime().optional(),
});

export const WEBHOOK_EVENTS = ["usage.threshold", "workspace.state", "secret.rotated"] as const;
export const WebhookEvent = z.enum(WEBHOOK_EVENTS);
export const WebhookCreate = z.strictObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  events: z.array(WebhookEvent).min(1).max(WEBHOOK_EVENTS.length),
  workspaceId: z.string().max(64).optional(),
});
export type WebhookCreate = z.infer<typeof WebhookCreate>;
export const WebhookView = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(WebhookEvent),
  workspaceId: z.string().nullable(),
  createdAt: z.string(),
  secret: z.string().optional(),
});
export type WebhookView = z.infer<typeof WebhookView>;
export const DeliveryView = z.object({
  deliveryId: z.string(),
  eventId: z.string(),
  type: z.string(),
  attempt: z.number(),
  at: z.string(),
  status: z.number().nullable(),
  error: z.string().nullable(),
  delivered: z.boolean(),
});

/** 1,000 operations: a control panel's page of sites in one call, under the 1 MB body limit. */
export const BATCH_MAX = 1000;
export const BatchOperation = z.strictObject({
  method: z.enum(["GET", "POST", "PATCH", "DELETE"]),
  path: z.string().regex(/^\/v1\/[\x21-\x7e]{0,2000}$/, "a /v1/ path"),
  body: z.unknown().optional(),
  idempotencyKey: z.string().optional(),
});
export const BatchRequest = z.strictObject({ operations: z.array(BatchOperation).min(1).max(BATCH_MAX) });
export type BatchRequest = z.infer<typeof BatchRequest>;
export const BatchResult = z.object({
  results: z.array(z.object({ status: z.number(), body: z.unknown() })),
});

/** `Idempotency-Key`: 1-255 printable characters (DESIGN). */
export const IdempotencyKey = z.string().regex(/^[\x20-\x7e]{1,255}$/);

/** A page of any list. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/**
 * The route name the gateway signs a /v1 call's identity for, and the management service
 * (services/management) checks: one name for every /v1 path, whose own routing is the service's.
 */
export const MANAGEMENT_IDENTITY_ROUTE = "management";
