import type { ClassifyOutcome, SiftClient, VerifyOutcome } from "./client.js";
import type { FieldValue } from "./types.js";

/**
 * Where a browser form carries the challenge solution: Sift's own `_vendor`, then the fields
 * sift.js also fills when a page keeps another vendor's widget markup (docs/integrations.md).
 */
export const SOLUTION_FIELDS = [
  "_vendor",
  "cf-turnstile-response",
  "g-recaptcha-response",
  "h-captcha-response",
  "frc-captcha-response",
] as const;

/** Why a form was taken or refused, strongest first. */
export interface FormReason {
  /** `challenge` (the challenge refused it), `outage` (the spec's outage advice decided), or a classify signal (`word`, `seo_pitch`, …). */
  signal: string;
  /** What a person reads: the verify message, the policy's cause, or the signal's label. */
  message: string;
  /** A classify signal's signed log-odds toward spam. */
  weight?: number;
  /** The form field a classify signal came from. */
  field?: string;
}

/** What a form handler needs: take it or not, the verdict, and why. */
export interface FormCheck {
  /** The challenge passed (or the outage advice accepted it) and the content is clean. */
  accepted: boolean;
  /** The classify verdict; null when the challenge refused the form, so nothing was classified. */
  verdict: ClassifyOutcome | null;
  reasons: FormReason[];
  /** The challenge's own outcome (`decidedBy` says whether Sift or the outage policy decided). */
  challenge: VerifyOutcome;
}

export interface FormCheckOptions {
  /** Fields never sent to classify (passwords, CSRF tokens); `_`-prefixed ones never are. */
  omit?: readonly string[];
  /** Ask for the classify signals (`?explain=1`) to fill `reasons`; default true. */
  explain?: boolean;
}

/** A request whose body a framework has parsed (express, Fastify, Koa's `ctx.request`), or the form itself. */
export type FormSource = { body?: unknown } | FormData | URLSearchParams;

/**
 * The plain `(req) => check` for any framework: finds the solution, verifies it, classifies the
 * rest of the form, and applies the spec's outage advice through the client's policy (verify
 * accepts on a network failure or `Internal server error`, never without a solution; a 503 from
 * classify is clean). Throws the client's `SiftError` where the spec gives no advice (Sift
 * unreachable for classify, a wrong key).
 */
export const formCheck =
  (client: SiftClient, options: FormCheckOptions = {}) =>
  async (source: FormSource, call: { signal?: AbortSignal } = {}): Promise<FormCheck> => {
    const fields = fieldsOf(source);
    const solution = SOLUTION_FIELDS.map((name) => fields[name]).find(
      (v) => typeof v === "string" && v !== "",
    );
    const challenge = await client.verify(solution, call);
    if (!challenge.accepted)
      return { accepted: false, verdict: null, reasons: [challengeReason(challenge)], challenge };

    const omit = new Set<string>([...SOLUTION_FIELDS, ...(options.omit ?? [])]);
    const content = Object.fromEntries(
      Object.entries(fields).filter(([name]) => !omit.has(name) && !name.startsWith("_")),
    );
    const verdict = await client.classify(content, { ...call, explain: options.explain ?? true });
    const reasons: FormReason[] =
      verdict.decidedBy === "policy"
        ? [{ signal: "outage", message: verdict.message }]
        : (verdict.reasons ?? []).map((r) => ({
            signal: r.signal,
            message: r.label ?? r.signal,
            weight: r.weight,
            ...(r.field ? { field: r.field } : {}),
          }));
    if (challenge.decidedBy === "policy") reasons.unshift(challengeReason(challenge));
    return { accepted: verdict.label === "clean", verdict, reasons, challenge };
  };

/**
 * Express (or connect) middleware: checks the parsed body (mount `express.urlencoded()` or
 * `express.json()` before it) and hands the handler the result as `req.sift`. It refuses
 * nothing itself: the handler decides what a refused form gets.
 */
export const siftForm = (client: SiftClient, options: FormCheckOptions = {}) => {
  const check = formCheck(client, options);
  return (req: { body?: unknown; sift?: FormCheck }, _res: unknown, next: (err?: unknown) => void): void => {
    if (req.body === undefined || req.body === null || typeof req.body !== "object") {
      return next(
        new TypeError("siftForm: no parsed body; mount express.urlencoded() or express.json() first"),
      );
    }
    check(req).then((result) => {
      req.sift = result;
      next();
    }, next);
  };
};

/** A request with `siftForm`'s result, for handlers' types. */
export interface SiftRequest {
  sift: FormCheck;
}

const challengeReason = (challenge: VerifyOutcome): FormReason => {
  if (challenge.decidedBy === "client") return { signal: "challenge", message: "Missing solution" };
  if (challenge.decidedBy === "policy") return { signal: "outage", message: `challenge: ${challenge.cause}` };
  return {
    signal: "challenge",
    message: challenge.response.message ?? (challenge.accepted ? "ok" : "refused"),
  };
};

/** The form's fields as classify takes them: scalars and lists of scalars; anything nested dropped. */
const fieldsOf = (source: FormSource): Record<string, FieldValue> => {
  const fields: Record<string, FieldValue> = {};
  const add = (name: string, value: unknown) => {
    if (typeof value !== "string") return; // an uploaded file is not content
    const seen = fields[name];
    fields[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen as string]), value];
  };
  // forEach, which both have in every lib (entries() needs DOM.Iterable).
  if (source instanceof FormData) {
    source.forEach((value, name) => add(name, value));
    return fields;
  }
  if (source instanceof URLSearchParams) {
    source.forEach((value, name) => add(name, value));
    return fields;
  }
  const body = source.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return fields;
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value))
      fields[name] = value as FieldValue;
    else if (Array.isArray(value) && value.every((v) => ["string", "number", "boolean"].includes(typeof v))) {
      fields[name] = value as FieldValue;
    }
  }
  return fields;
};
