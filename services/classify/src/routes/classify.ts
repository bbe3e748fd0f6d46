import type { RequestHandler } from "express";
import {
  labelFor,
  MAX_REASONS,
  MODEL_NAMES,
  retryAfterSeconds,
  type ClassifyResponse,
  type ModelName,
} from "@sift/contracts";
import type { UsageEvents, UsageMeter, UsageStatus } from "@sift/keystore";
import { DEFAULT_LOG_SETTINGS, logIsOn, type LogSettings, type VerdictInput } from "@sift/verdicts";
import {
  Counter,
  identityOf,
  logFailure,
  requestContext,
  sendError,
  syncSpan,
  traceStep,
  type Clock,
  type Logger,
  type Registry,
  type Tracing,
} from "@sift/runtime";
import type { InferenceClient } from "@sift/inference";
import { readClassifyRequest } from "../domain/request.ts";
import { bodyParts } from "./body-parts.ts";
import { testReasons, testVerdict } from "../domain/test-mode.ts";
import { classifyRecord } from "../domain/verdict-record.ts";
import { withNetworkReason, type NetworkLookup } from "../clients/network.ts";
import { mailDomainSignal, type MailDomains } from "../clients/mail-domains.ts";
import { withNetwork } from "@sift/network";
import { TextPrint } from "@sift/feedback";

export interface ClassifyRouteDeps {
  logger: Logger;
  inference: InferenceClient;
  /** The model names requests may give (default MODEL_NAMES). */
  models?: readonly ModelName[];
  usage: UsageMeter;
  metrics?: Registry;
  tracing?: Tracing | undefined;
  /** The verdict log's write side (@sift/verdicts VerdictRecorder); none: nothing recorded. */
  verdicts?: { record(input: VerdictInput, settings: LogSettings): boolean } | undefined;
  clock: Clock;
  /**
   * The reasons a logged call that asked for none gets for the log: `light` (default, the
   * worker's cheap ones), `full` (explained as `?explain=1` is) or none (`asked`).
   */
  logReasons?: "light" | "full" | "asked";
  /** The network (docs/network.md); none: off. */
  network?: NetworkLookup | undefined;
  /** The sender's e-mail domain check (SIFT_EMAIL_DNS, docs/feedback.md); none: off. */
  mailDomains?: MailDomains | undefined;
  /**
   * Takes the usage meter's webhook events of a call (@sift/webhooks usageEventsSender): it
   * must return at once and never throw, so the call neither waits for it nor fails by it.
   */
  usageEvents?: ((workspaceId: string, status: UsageStatus, events: UsageEvents) => void) | undefined;
}

/**
 * DESIGN.md's classify order after the gateway: 400 model → 400 content rules → test key →
 * 429 quota_exceeded → 503 / 500 → 200, counted. Nothing but a 200 for a real key is counted.
 */
export const classifyRoute = (deps: ClassifyRouteDeps): RequestHandler => {
  const registers = deps.metrics ? [deps.metrics] : [];
  const verdicts = new Counter({
    name: "sift_classify_verdicts_total",
    help: "Verdicts answered, by label and key kind",
    labelNames: ["label", "key"],
    registers,
  });
  const refusals = new Counter({
    name: "sift_classify_refusals_total",
    help: "Calls answered without a verdict, by reason (invalid_request, quota_exceeded, caller_gone, or an InferenceFailure)",
    labelNames: ["reason"],
    registers,
  });

  return async (req, res) => {
    const identity = identityOf(res);
    const explain = req.query["explain"] === "1" || req.query["explain"] === "true";
    const input = readClassifyRequest(bodyParts(req, "model"), deps.models ?? MODEL_NAMES);
    if (!input.ok) {
      refusals.inc({ reason: "invalid_request" });
      return sendError(res, "invalid_request", input.message);
    }

    const { key } = identity;
    if (key.status === "test") {
      const verdict = testVerdict(input.fields);
      verdicts.inc({ label: verdict.label, key: "test" });
      return void res.json(explain ? { ...verdict, reasons: testReasons(verdict) } : verdict);
    }
    // The gateway only forwards test or resolved classify keys; anything else is a bug there.
    if (key.status !== "valid" || key.kind !== "classify") return sendError(res, "invalid_key");

    const workspace = { id: key.workspaceId, plan: key.plan, allowance: key.allowance };
    // A workspace that keeps a log gets each verdict's reasons recorded: the light ones (no
    // extra model run) unless the caller asked for reasons or SIFT_LOG_REASONS says otherwise
    // (the cost is in docs/benchmarks.md); the answer carries them only when asked.
    const settings = key.log ?? DEFAULT_LOG_SETTINGS;
    const logged = deps.verdicts && logIsOn(settings) ? settings : null;
    const logReasons = deps.logReasons ?? "light";
    const forLog = logged === null || logReasons === "asked" ? false : logReasons === "full" ? true : "light";
    // The model's request goes out with the usage script, not after it: neither needs the other,
    // so a call waits for the slower of the two round trips instead of their sum (issue 40). The
    // answers keep DESIGN.md's order: a refused admission answers 429 whatever the model said,
    // and its score is dropped (a model run the gateway's rate limit bounds).
    const scoring = deps.inference
      .score(input.model, input.fields, identity.requestId, {
        workspaceId: key.workspaceId,
        explain: explain || forLog,
        trace: requestContext(res).traceContext,
      })
      .catch(() => null);
    // The network's one Redis round trip goes out with the usage script, not after its answer, so
    // it is more often back before the model's reply, which the answer waits for anyway (issue
    // 37's throughput goal). A call then refused for its quota still counts as a copy that
    // reached this site, which it did (docs/network.md).
    const origin = req.get("origin") ?? req.get("referer");
    const print = new TextPrint(input.fields);
    const spreads = deps.network?.ask(key, input.fields, print, origin, identity.requestId) ?? null;
    // The sender's domain likewise: its budget starts now, so a lookup that outlasts the model's
    // answer delays the verdict by the rest of the budget at most.
    const mail = deps.mailDomains?.check(input.fields) ?? null;
    // Counted once per attempt: a resend of this request, by the balancer or the gateway, is
    // the same call (DESIGN.md's attempt id).
    const admission = await traceStep(res, deps.tracing, "usage admit", () =>
      deps.usage.admit(workspace, identity.attempt),
    );
    if (admission.events) deps.usageEvents?.(workspace.id, admission.status, admission.events);
    if (!admission.admitted) {
      refusals.inc({ reason: "quota_exceeded" });
      res.setHeader("Retry-After", String(retryAfterSeconds(admission.status.retryAfterMs)));
      return sendError(res, "quota_exceeded");
    }
    const result = await scoring;
    // A call not answered with a verdict gives its count back; a failed release is logged, never
    // answered (the caller's answer must not depend on it).
    const giveBack = () =>
      deps.usage
        .release(admission.reservation, workspace.allowance)
        .catch((err: unknown) =>
          logFailure(deps.logger, err, { requestId: identity.requestId }, "usage release failed"),
        );
    if (!result?.ok) {
      await giveBack();
      // A thrown client is a bug there, not a reason of InferenceFailure's: counted as `error`.
      const reason = result?.reason ?? "error";
      refusals.inc({ reason });
      deps.logger.warn({ requestId: identity.requestId, model: input.model, reason }, "model unavailable");
      return sendError(res, "unavailable");
    }
    if (res.destroyed) {
      // The caller went while the model worked (a gateway lost with the call in flight): nobody
      // gets this verdict, so it is not counted; the balancer's second copy, if any, will be.
      await giveBack();
      refusals.inc({ reason: "caller_gone" });
      return;
    }
    // The spread joins the score's log-odds after the worker's strictness and learned layers,
    // which are additive there too, so the order does not change the score (docs/network.md).
    const network = deps.network?.signal(await spreads, result.held === true) ?? { term: 0 };
    // A held verdict (a list match, a reviewed near-copy) is the site's word: the domain moves it not.
    const sender = result.held === true ? { term: 0 } : mailDomainSignal(await mail);
    const score = withNetwork(result.score, network.term + sender.term);
    const reasons = withNetworkReason(
      withNetworkReason(result.reasons ?? [], network.reason, MAX_REASONS),
      sender.reason,
      MAX_REASONS,
    );
    const verdict: ClassifyResponse = { label: labelFor(score), score, model: result.model };
    verdicts.inc({ label: verdict.label, key: "real" });
    res.json(explain ? { ...verdict, reasons } : verdict);
    if (logged) {
      // After the answer; record() keeps the entry for the workspace's next usage script call.
      const time = deps.clock.now();
      try {
        syncSpan(deps.tracing, requestContext(res).traceContext, "verdict log", () => {
          const record = classifyRecord({
            key,
            time,
            verdict,
            modelVersion: result.version,
            reasons,
            fields: input.fields,
            print,
            attempt: identity.attempt,
          });
          deps.verdicts?.record(record, logged);
        });
      } catch (err) {
        logFailure(deps.logger, err, { requestId: identity.requestId }, "verdict not recorded");
      }
    }
  };
};
