/** A form field's value: one string, or each of a repeated field's (as @sift/runtime parses them). */
export type FormValue = string | string[];

/**
 * Akismet's parameters as Sift reads them (docs/integrations.md): the ones that carry what a
 * person wrote become the submission's fields under their Akismet names (spec 2.1 rule 6 allows
 * any names); everything else (`user_ip`, `user_agent`, `referrer`, `blog`, server variables,
 * WordPress's `POST_*` copies) is read for the key and test triggers only, never an error.
 */
export const AKISMET_CONTENT_PARAMS = [
  "comment_author",
  "comment_author_email",
  "comment_author_url",
  "comment_content",
  "comment_type",
  "blog_lang",
] as const;

/** `comment_context[]` as WordPress sends it, `comment_context[0]`… as @cedx/akismet does. */
const CONTEXT_PARAM = /^comment_context(\[\d*\])?$/;

/** Akismet's documented test triggers (its "Testing your integration" page). */
export const AKISMET_TRIGGERS = {
  spamAuthor: "viagra-test-123",
  spamEmail: "akismet-guaranteed-spam@example.com",
  hamRole: "administrator",
} as const;

export type AkismetParams = Readonly<Record<string, FormValue>>;

/** One parameter as a single string: the first of a repeated one, empty when absent. */
export const param = (params: AkismetParams, name: string): string => {
  const value = Object.prototype.hasOwnProperty.call(params, name) ? params[name] : undefined;
  return (Array.isArray(value) ? value[0] : value) ?? "";
};

/** The submission Sift classifies or learns from: the content parameters, context as one list. */
export const akismetContent = (params: AkismetParams): Record<string, FormValue> => {
  const content: Record<string, FormValue> = {};
  for (const name of AKISMET_CONTENT_PARAMS) {
    const value = param(params, name);
    if (value !== "") content[name] = value;
  }
  const context = Object.keys(params)
    .filter((name) => CONTEXT_PARAM.test(name))
    .flatMap((name) => params[name] ?? []);
  if (context.length > 0) content["comment_context"] = context;
  return content;
};

/**
 * What a call's test triggers decide, before anything is counted: `spam` and `clean` answer
 * without classifying; `test` classifies in Sift's test mode (`is_test=1`: Akismet's "do not
 * learn from this", here: not counted, not logged, not learned); none: a real call.
 */
export const akismetTrigger = (params: AkismetParams): "spam" | "clean" | "test" | null => {
  if (param(params, "comment_author").toLowerCase() === AKISMET_TRIGGERS.spamAuthor) return "spam";
  if (param(params, "comment_author_email").toLowerCase() === AKISMET_TRIGGERS.spamEmail) return "spam";
  if (param(params, "user_role").toLowerCase() === AKISMET_TRIGGERS.hamRole) return "clean";
  const isTest = param(params, "is_test").toLowerCase();
  if (isTest === "1" || isTest === "true") return "test";
  return null;
};

/** Where the key came from: a parameter (its exact case) or the host name (any case). */
export type AkismetKeySource =
  { from: "param"; key: string } | { from: "host"; key: string } | { from: "none" };

/**
 * A Sift secret's first characters. A host name's first label is taken as a key only when it
 * starts so: `localhost`, `sift` or `www` in a plain host name are never looked up.
 */
const SECRET_PREFIX = "sk_";

/**
 * Which parameter names the key first. A call about the site's own key (comment-check, submits)
 * reads `api_key`, the one the WordPress plugin adds to every call; a call that asks about a key
 * (verify-key, get-subscription, get-stats) reads `key` first, since the plugin checking a newly
 * typed key sends `key=<new>&api_key=<stored>` and the answer must be about the new one.
 */
export type AkismetKeyOrder = "api_key" | "key";

/** The key parameter `first` names, then the other, then the Host header's first label (`KEY.sift.example`). */
export const akismetKey = (
  params: AkismetParams,
  host: string | undefined,
  first: AkismetKeyOrder = "api_key",
): AkismetKeySource => {
  for (const name of first === "key" ? ["key", "api_key"] : ["api_key", "key"]) {
    const value = param(params, name).trim();
    if (value !== "") return { from: "param", key: value };
  }
  const label = (host ?? "").split(".")[0] ?? "";
  if ((host ?? "").includes(".") && label.toLowerCase().startsWith(SECRET_PREFIX))
    return { from: "host", key: label };
  return { from: "none" };
};
