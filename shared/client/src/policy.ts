/**
 * What the client does when Sift cannot give a real answer: the spec's outage advice (sections
 * 7.1 and 7.2), written down as data so that a site can read it, log it, and change it on
 * purpose rather than by accident.
 *
 * Not in here, because it is not a choice: a submission without a challenge solution (an absent
 * or empty `_vendor` field) is never accepted, whatever happens to the service. Spec 7.2:
 * "Never accept a submission just because its `_vendor` field is missing."
 */
export interface OutagePolicy {
  readonly classify: {
    /**
     * Spec 7.1: "Recommended caller behaviour on 503: treat the message as clean so an outage
     * does not lose real messages." When true, a 503 that outlasts the retries gives a `clean`
     * outcome with `decidedBy: "policy"`; when false it throws a `SiftError`.
     *
     * The spec advises nothing for other Classify failures (network failure, time-out, 500,
     * 429), so they throw a `SiftError` and the site decides.
     */
    readonly cleanOnUnavailable: boolean;
  };
  readonly verify: {
    /**
     * Spec 7.2: "accept a submission only when the request cannot reach the service (network
     * failure) or the answer is `Internal server error`." A network failure is a fetch that
     * fails without any HTTP answer: refused or reset connection, DNS failure, a socket closed
     * before the response.
     */
    readonly acceptOnNetworkFailure: boolean;
    /**
     * A time-out: no answer within the client's `timeoutMs`. Spec 7.2 ends its outage advice
     * with "Callers set their own time-out, since no time-out is stated for the call", so a
     * service that does not answer in that time is one the request could not reach. Kept apart
     * from `acceptOnNetworkFailure` so a site that reads the spec more strictly can turn it off.
     */
    readonly acceptOnTimeout: boolean;
    /** Spec 7.2: the answer `{ok: false, message: "Internal server error"}` (after retries). */
    readonly acceptOnInternalError: boolean;
  };
}

/** One policy that either accepts every outage (the spec's advice) or refuses every one. */
const outagePolicy = (accept: boolean): OutagePolicy =>
  Object.freeze({
    classify: Object.freeze({ cleanOnUnavailable: accept }),
    verify: Object.freeze({
      acceptOnNetworkFailure: accept,
      acceptOnTimeout: accept,
      acceptOnInternalError: accept,
    }),
  });

/** The spec's advice, word for word: the default of every client. */
export const SPEC_OUTAGE_POLICY: OutagePolicy = outagePolicy(true);

/** Fail closed: every outage is an error (classify) or a rejection (verify). */
export const STRICT_OUTAGE_POLICY: OutagePolicy = outagePolicy(false);
