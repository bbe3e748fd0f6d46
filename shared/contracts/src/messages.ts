/**
 * Every message text of the public interface (../shared/spec/interface.md, section 7), defined
 * once. Services and tests import these; nothing else spells them out.
 */

/** The model every deployment ships, and the one test mode names (DESIGN.md). */
export const SPAM_STANDARD = "spam-standard";
/**
 * Every model name a request may give (spec 2.1's `model` rule and its texts read this list),
 * the one place a name is added (docs/architecture.md, "Adding a model"). Each is a NATS
 * subject token (inference.ts `ModelToken`): a worker serves it on `sift.inference.v1.<name>`.
 */
export const MODEL_NAMES = [SPAM_STANDARD] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

export const ClassifyMessage = {
  malformedJson: "Malformed JSON body",
  contentType: "content must be a string or an object of fields",
  contentEmpty: "content is empty",
  tooManyFields: "content has more than 100 fields",
  tooLong: "content is longer than 20,000 characters",
  missingKey: "Missing secret key",
  invalidKey: "Invalid secret key",
  challengeKey: "Secret key belongs to a Challenge configuration",
  classifyOff: "Classify is not enabled for this workspace",
  bodyTooLarge: "Request body is too large",
  rateLimited: "Too many requests for this key. Retry after a short wait.",
  quotaExceeded: "This workspace has used its Classify allowance for the last 30 days.",
  internal: "Internal server error",
  unavailable: "Classification is temporarily unavailable",
  /** Not in the spec's table: our decision for a body that is neither JSON nor form-encoded. */
  unsupportedMediaType: "Content-Type must be application/json or application/x-www-form-urlencoded",
  /** Not in the spec's table: our decision for a request without `model`. */
  missingModel: `model is required. Valid models: ${MODEL_NAMES.join(", ")}`,
} as const;

/** POST /feedback (DESIGN.md, beyond the spec): its one text of its own; the rest are classify's. */
export const FeedbackMessage = {
  invalidLabel: 'label must be "spam" or "clean"',
} as const;

export const invalidFieldMessage = (name: string): string =>
  `content field ${JSON.stringify(name)} must be a string, number, boolean or list of those`;

export const unknownModelMessage = (name: string, models: readonly string[] = MODEL_NAMES): string =>
  `Unknown model ${JSON.stringify(name)}. Valid models: ${models.join(", ")}`;

export const VerifyMessage = {
  missingKey: "Missing secret key",
  missingSolution: "Missing solution",
  testKey: "Test key",
  invalidKey: "Invalid secret key",
  mismatchingKeys: "Mismatching keys",
  invalidSolution: "Invalid solution",
  invalidSolutionLength: "Invalid solution length",
  invalidSignature: "Invalid signature",
  expired: "Expired challenge",
  spent: "Spent challenge",
  internal: "Internal server error",
} as const;
export type VerifyMessage = (typeof VerifyMessage)[keyof typeof VerifyMessage];

/**
 * Texts the spec leaves to us (our decisions, docs/decisions.md and docs/challenge.md): a service
 * reached without the gateway's signature, an unknown path, and the browser-facing /challenge.
 */
export const EdgeMessage = {
  unsigned: "Unsigned request",
  notFound: "Not found",
  badRequest: "Bad request",
  challengeRateLimited: "Too many challenges from this address. Retry after a short wait.",
  challengesUnavailable: "Challenges are temporarily unavailable",
  managementUnavailable: "The management API is temporarily unavailable",
  missingSiteKey: "Missing site key",
  unknownSiteKey: "Unknown site key",
} as const;

/** The verify endpoint's 413 is plain text, unlike classify's JSON. */
export const VERIFY_TOO_LARGE_TEXT = "Payload Too Large";

/** The secret key that switches both operations to test mode (spec 5.3). */
export const TEST_KEY = "test";
/** Classify test mode: content holding this text is spam. */
export const TEST_SPAM_MARKER = "vendor-test-spam";
/** Verify test mode: this solution passes. */
export const TEST_OK_SOLUTION = "ok";

/** Spec 2.2 and 8: a score at or above this is `spam`. */
export const SPAM_THRESHOLD = 0.8;

/**
 * A workspace's strictness: where 0.8 sits for it, each mode a false-positive target on the
 * model's out-of-domain clean messages (docs/feedback.md). `balanced` is the model's own.
 */
export const STRICTNESS_MODES = ["relaxed", "balanced", "strict"] as const;
export type Strictness = (typeof STRICTNESS_MODES)[number];
export const DEFAULT_STRICTNESS: Strictness = "balanced";
/** Spec 8. */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_FIELDS = 100;
export const MAX_CONTENT_CHARS = 20_000;
