import { VerifyMessage, type SiteverifyShape } from "@sift/contracts";

/**
 * Verify's own answers in each vendor's words (docs/integrations.md has the same table). The
 * siteverify shapes answer HTTP 200 with `success` and `error-codes`; Friendly Captcha v2 answers
 * its `error.error_code` with the status its API gives that code.
 */
export interface VerifyAnswer {
  ok: boolean;
  message?: string | undefined;
}

/** What verify's answer is, as a vendor would name it. */
export type Outcome =
  | "ok"
  | "missing-secret"
  | "missing-response"
  | "invalid-secret"
  | "invalid-response"
  | "mismatch"
  | "expired"
  | "spent"
  | "bad-request"
  | "internal";

/** Verify's message → outcome. `Test key` decides by `ok` (spec 5.3). */
export const outcomeOf = (answer: VerifyAnswer): Outcome => {
  if (answer.ok) return "ok";
  switch (answer.message) {
    case VerifyMessage.missingKey:
      return "missing-secret";
    case VerifyMessage.missingSolution:
      return "missing-response";
    case VerifyMessage.invalidKey:
      return "invalid-secret";
    case VerifyMessage.mismatchingKeys:
      return "mismatch";
    case VerifyMessage.expired:
      return "expired";
    case VerifyMessage.spent:
      return "spent";
    case VerifyMessage.testKey:
    case VerifyMessage.invalidSolution:
    case VerifyMessage.invalidSolutionLength:
    case VerifyMessage.invalidSignature:
      return "invalid-response";
    default:
      return "internal";
  }
};

/** reCAPTCHA's codes, which Turnstile took over as they are. */
const GOOGLE_CODES: Record<Exclude<Outcome, "ok">, string> = {
  "missing-secret": "missing-input-secret",
  "missing-response": "missing-input-response",
  "invalid-secret": "invalid-input-secret",
  "invalid-response": "invalid-input-response",
  mismatch: "invalid-input-response",
  expired: "timeout-or-duplicate",
  spent: "timeout-or-duplicate",
  "bad-request": "bad-request",
  internal: "internal-error",
};

/**
 * The error code each siteverify shape gives an outcome. Turnstile and reCAPTCHA say
 * `timeout-or-duplicate` for both an old and a reused token; hCaptcha tells them apart and names
 * a token of another site's key. `internal-error` is Turnstile's word: reCAPTCHA and hCaptcha
 * document none for their own failure, and a client that meets an unknown code fails closed.
 */
const CODES: Record<SiteverifyShape, Record<Exclude<Outcome, "ok">, string>> = {
  turnstile: GOOGLE_CODES,
  recaptcha: GOOGLE_CODES,
  hcaptcha: {
    "missing-secret": "missing-input-secret",
    "missing-response": "missing-input-response",
    "invalid-secret": "invalid-input-secret",
    "invalid-response": "invalid-input-response",
    mismatch: "sitekey-secret-mismatch",
    expired: "expired-input-response",
    spent: "already-seen-response",
    "bad-request": "bad-request",
    internal: "internal-error",
  },
};

export const siteverifyCode = (shape: SiteverifyShape, outcome: Exclude<Outcome, "ok">): string =>
  CODES[shape][outcome];

/** Friendly Captcha v2's code and HTTP status for an outcome (its API's own table). */
export const FRIENDLY_ERRORS: Record<Exclude<Outcome, "ok">, { code: string; status: number }> = {
  "missing-secret": { code: "auth_required", status: 401 },
  "invalid-secret": { code: "auth_invalid", status: 401 },
  "missing-response": { code: "response_missing", status: 400 },
  "bad-request": { code: "bad_request", status: 400 },
  "invalid-response": { code: "response_invalid", status: 200 },
  mismatch: { code: "sitekey_invalid", status: 400 },
  expired: { code: "response_timeout", status: 200 },
  spent: { code: "response_duplicate", status: 200 },
  internal: { code: "internal_server_error", status: 500 },
};

/**
 * The vendors' documented test secrets, answered as the vendors answer them and never sent to
 * verify (so never counted or spent). Turnstile's three: always passes, always fails, always
 * "already spent". reCAPTCHA's v2 test secret passes everything. hCaptcha's test secret passes
 * only its test token (and says `not-using-dummy-passcode` otherwise).
 */
export const DUMMY_SECRETS: Record<
  SiteverifyShape,
  Record<string, (response: string) => Outcome | "not-dummy">
> = {
  turnstile: {
    "1x0000000000000000000000000000000AA": () => "ok",
    "2x0000000000000000000000000000000AA": () => "invalid-response",
    "3x0000000000000000000000000000000AA": () => "spent",
  },
  recaptcha: {
    "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe": () => "ok",
  },
  hcaptcha: {
    "0x0000000000000000000000000000000000000000": (response) =>
      response === "10000000-aaaa-bbbb-cccc-000000000001" ? "ok" : "not-dummy",
  },
};
