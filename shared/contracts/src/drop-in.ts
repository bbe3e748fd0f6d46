import { z } from "zod";
import { jsonSchema, type OperationDoc } from "./openapi-parts.ts";

/**
 * The drop-in APIs (issue 38, docs/integrations.md): other vendors' request and answer shapes
 * on the gateway, each translated there to Sift's own classify, feedback and verify calls, so a
 * site's existing library speaks to Sift with a changed host name and nothing else.
 */

/** Akismet's REST paths (DESIGN.md "Akismet API"). */
export const AKISMET_PATHS = {
  verifyKey: "/1.1/verify-key",
  commentCheck: "/1.1/comment-check",
  submitSpam: "/1.1/submit-spam",
  submitHam: "/1.1/submit-ham",
  usageLimit: "/1.2/usage-limit",
  /** The WordPress plugin's settings page (issue 46): connectivity, account card, statistics. */
  test: "/1.1/test",
  getSubscription: "/1.1/get-subscription",
  getStats: "/1.1/get-stats",
} as const;

/** The Akismet paths answered to a GET; every other one is a POST. */
export const AKISMET_GETS: ReadonlySet<string> = new Set([AKISMET_PATHS.usageLimit, AKISMET_PATHS.test]);

/** The body Akismet answers a submit-spam or submit-ham with; clients compare it to the letter. */
export const AKISMET_THANKS = "Thanks for making the web a better place.";

/** The siteverify shapes by path (DESIGN.md "siteverify"). */
export const SITEVERIFY_PATHS = {
  hcaptcha: "/siteverify",
  turnstile: "/turnstile/v0/siteverify",
  recaptcha: "/recaptcha/api/siteverify",
} as const;
export type SiteverifyShape = keyof typeof SITEVERIFY_PATHS;

/** Friendly Captcha v2's siteverify (its own JSON shape, `X-API-Key`). */
export const FRIENDLY_SITEVERIFY_PATH = "/api/v2/captcha/siteverify";

/**
 * Where the vendors' pages load their widget script from, on the same paths under Sift: the
 * gateway serves sift.js there too, so a page (or an app whose captcha URL is one setting, as
 * Gitea's RECAPTCHA_URL) changes only the host of its script tag. Friendly Captcha's comes from a
 * CDN path of its own and has no counterpart.
 */
export const VENDOR_SCRIPT_PATHS = ["/turnstile/v0/api.js", "/recaptcha/api.js", "/1/api.js"] as const;

/**
 * Each drop-in path's metrics label (the route label of `sift_http_request_duration_seconds`):
 * a fixed set, as the endpoints' names are; the vendor script paths count as `sift.js`.
 */
export const DROP_IN_LABELS: ReadonlyMap<string, string> = new Map([
  [AKISMET_PATHS.verifyKey, "akismetVerifyKey"],
  [AKISMET_PATHS.commentCheck, "akismetCommentCheck"],
  [AKISMET_PATHS.submitSpam, "akismetSubmitSpam"],
  [AKISMET_PATHS.submitHam, "akismetSubmitHam"],
  [AKISMET_PATHS.usageLimit, "akismetUsageLimit"],
  [AKISMET_PATHS.test, "akismetTest"],
  [AKISMET_PATHS.getSubscription, "akismetGetSubscription"],
  [AKISMET_PATHS.getStats, "akismetGetStats"],
  [SITEVERIFY_PATHS.hcaptcha, "siteverifyHcaptcha"],
  [SITEVERIFY_PATHS.turnstile, "siteverifyTurnstile"],
  [SITEVERIFY_PATHS.recaptcha, "siteverifyRecaptcha"],
  [FRIENDLY_SITEVERIFY_PATH, "siteverifyFriendly"],
  ...VENDOR_SCRIPT_PATHS.map((path) => [path, "sift.js"] as const),
]);

/** What a siteverify shape answers, always with HTTP 200. */
export const SiteverifyResponse = z.object({
  success: z.boolean(),
  challenge_ts: z.string().optional(),
  hostname: z.string().optional(),
  "error-codes": z.array(z.string()),
});
export type SiteverifyResponse = z.infer<typeof SiteverifyResponse>;

const AkismetParams = z.object({
  api_key: z
    .string()
    .optional()
    .meta({ description: "The classify secret key (or `key`, or the Host's first label)." }),
  key: z.string().optional(),
  blog: z.string().optional(),
  comment_author: z.string().optional(),
  comment_author_email: z.string().optional(),
  comment_author_url: z.string().optional(),
  comment_content: z.string().optional(),
  comment_type: z.string().optional(),
  blog_lang: z.string().optional(),
  user_role: z.string().optional(),
  is_test: z.string().optional(),
});

const form = (type: z.ZodType) => ({ "application/x-www-form-urlencoded": { schema: jsonSchema(type) } });
const text = (description: string, values?: readonly string[]) => ({
  description,
  content: { "text/plain": { schema: { type: "string", ...(values ? { enum: values } : {}) } } },
});
const akismetError = text(
  "An error: the message in the body and in X-akismet-error / X-akismet-debug-help (429 with Retry-After; 503: the model failed, retry).",
);
/** The Akismet key: a body field, or the first label of the Host header (matched in any case). */
const akismetAuth = [{}];

const akismetDocs: Record<keyof typeof AKISMET_PATHS, OperationDoc> = {
  verifyKey: {
    summary: "Akismet: is this classify secret key valid?",
    security: akismetAuth,
    requestBody: { required: true, content: form(AkismetParams) },
    responses: {
      "200": text("`valid` or `invalid` (then X-akismet-debug-help says why).", ["valid", "invalid"]),
    },
  },
  commentCheck: {
    summary: "Akismet: classify a comment (counted as a classify call)",
    security: akismetAuth,
    requestBody: { required: true, content: form(AkismetParams) },
    responses: {
      "200": text(
        "`true` (spam) or `false`; X-akismet-guid always, never X-akismet-pro-tip (a site reviews all it catches); `invalid` for a bad key.",
        ["true", "false", "invalid"],
      ),
      "400": akismetError,
      "403": akismetError,
      "429": akismetError,
      "503": akismetError,
    },
  },
  submitSpam: {
    summary: "Akismet: report a missed spam (as POST /feedback with label spam)",
    security: akismetAuth,
    requestBody: { required: true, content: form(AkismetParams) },
    responses: {
      "200": text("The thanks text, or `invalid`.", [AKISMET_THANKS, "invalid"]),
      "400": akismetError,
      "429": akismetError,
    },
  },
  submitHam: {
    summary: "Akismet: report a false positive (as POST /feedback with label clean)",
    security: akismetAuth,
    requestBody: { required: true, content: form(AkismetParams) },
    responses: {
      "200": text("The thanks text, or `invalid`.", [AKISMET_THANKS, "invalid"]),
      "400": akismetError,
      "429": akismetError,
    },
  },
  usageLimit: {
    summary: "Akismet: the workspace's classify allowance and its use over the last 30 days",
    security: akismetAuth,
    parameters: [
      { name: "api_key", in: "query", required: false, schema: { type: "string" } },
      { name: "key", in: "query", required: false, schema: { type: "string" } },
    ],
    responses: {
      "200": {
        description: "`limit` is `none` on a paid plan; `throttled` while paused.",
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                limit: { oneOf: [{ type: "integer" }, { type: "string", const: "none" }] },
                usage: { type: "integer" },
                percentage: { type: "string" },
                throttled: { type: "boolean" },
              },
            },
          },
        },
      },
    },
  },
  test: {
    summary: "Akismet: the plugin's connectivity check (no key)",
    responses: { "200": text("Always `connected`.", ["connected"]) },
  },
  getSubscription: {
    summary:
      "Akismet: the account behind a classify secret key (`key` first), as the WordPress plugin reads it",
    security: akismetAuth,
    requestBody: { required: true, content: form(AkismetParams) },
    responses: {
      "200": {
        description:
          '`{account_id, account_name, account_type, status: "active", next_billing_date: null, limit_reached, usage: {limit, usage}}` (`limit_reached` `yellow` in the free plan\'s grace, `red` while paused), or the text `invalid`.',
        content: { "application/json": { schema: { type: "object" } } },
      },
      "403": akismetError,
    },
  },
  getStats: {
    summary: "Akismet: the statistics card's figures for a classify secret key (`key` first)",
    security: akismetAuth,
    requestBody: { required: true, content: form(AkismetParams) },
    responses: {
      "200": {
        description:
          "`{spam, ham, missed_spam, false_positives, accuracy, time_saved, checked}`: the gateway keeps no verdict totals, so Akismet's figures are 0; `checked` is the classify calls counted in the last 30 days. Or the text `invalid`.",
        content: { "application/json": { schema: { type: "object" } } },
      },
      "403": akismetError,
    },
  },
};

const SiteverifyRequest = z.object({
  secret: z.string().meta({ description: "A challenge secret key." }),
  response: z
    .string()
    .meta({ description: "The solution (the `_vendor` field, or the vendor's field the script filled)." }),
  remoteip: z.string().optional(),
  sitekey: z.string().optional(),
});

const siteverifyDoc = (vendor: string): OperationDoc => ({
  summary: `Verify a solution in ${vendor}'s siteverify shape`,
  requestBody: {
    required: true,
    content: {
      "application/x-www-form-urlencoded": { schema: jsonSchema(SiteverifyRequest) },
      "application/json": { schema: jsonSchema(SiteverifyRequest) },
    },
  },
  responses: {
    "200": {
      description: "Every outcome; `error-codes` spelled as the vendor spells them (docs/integrations.md).",
      content: { "application/json": { schema: jsonSchema(SiteverifyResponse) } },
    },
  },
});

const friendlyDoc: OperationDoc = {
  summary: "Verify a solution in Friendly Captcha v2's shape",
  security: [{ apiKey: [] }],
  requestBody: {
    required: true,
    content: {
      "application/json": {
        schema: jsonSchema(z.object({ response: z.string(), sitekey: z.string().optional() })),
      },
    },
  },
  responses: {
    "200": {
      description:
        "`success` true with `data`, or false with `error.error_code` (response_invalid, response_timeout, response_duplicate).",
    },
    "400": { description: "bad_request, response_missing or sitekey_invalid." },
    "401": { description: "auth_required or auth_invalid." },
    "500": { description: "internal_server_error." },
  },
};

/** The drop-in paths as OpenAPI path items (openapi.ts adds them to the document). */
export const dropInPaths = (): Record<string, Record<string, OperationDoc>> => ({
  ...Object.fromEntries(
    (Object.keys(AKISMET_PATHS) as Array<keyof typeof AKISMET_PATHS>).map((name) => [
      AKISMET_PATHS[name],
      { [AKISMET_GETS.has(AKISMET_PATHS[name]) ? "get" : "post"]: akismetDocs[name] },
    ]),
  ),
  [SITEVERIFY_PATHS.hcaptcha]: { post: siteverifyDoc("hCaptcha") },
  [SITEVERIFY_PATHS.turnstile]: { post: siteverifyDoc("Cloudflare Turnstile") },
  [SITEVERIFY_PATHS.recaptcha]: { post: siteverifyDoc("Google reCAPTCHA") },
  [FRIENDLY_SITEVERIFY_PATH]: { post: friendlyDoc },
});
