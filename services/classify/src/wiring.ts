import type { NatsConnection } from "nats";
import { BULL_PREFIX, type ModelName } from "@sift/contracts";
import { BullReportQueue } from "@sift/reports";
import { ReportStore } from "@sift/feedback";
import { LogKeyRing, RedisVerdictLog, VerdictRecorder } from "@sift/verdicts";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { dependencyChecks, type IdentitySigner, type ProcessDeps, type RedisClient } from "@sift/runtime";
import { buildClassifyApp } from "./app.ts";
import { NatsInferenceClient } from "@sift/inference";
import { tracedInferenceClient } from "./clients/traced-inference.ts";
import { startLearner } from "./jobs/learner.ts";
import { startLogRetention } from "./jobs/log-retention.ts";
import { startUsageJobs } from "./jobs/scheduler.ts";
import { NetworkLookup, type NetworkSettings } from "./clients/network.ts";
import { MailDomains, type MailDomainSettings } from "./clients/mail-domains.ts";
import { RedisNetworkStore } from "@sift/network";
import { ReportExamples } from "@sift/learning";
import { createWebhookQueue, usageEventsSender, WebhookStore } from "@sift/webhooks";

/**
 * Everything the classify service runs, on real clients: the app, its BullMQ jobs (month-end)
 * and the learner that applies reports. main.ts and the test harness both build it here; the
 * caller serves the app and stops the rest.
 */
export const createClassifyService = async (
  deps: ProcessDeps & {
    redis: RedisClient;
    /** BullMQ's own connection: it blocks, and waits out Redis outages instead of failing fast. */
    jobsRedis: RedisClient;
    nats: NatsConnection;
    signer: IdentitySigner;
    inferenceTimeoutMs: number;
    /** Concurrent submissions share NATS requests (@sift/inference); default on. */
    inferenceCoalesce?: boolean;
    /** The model names requests may give; default MODEL_NAMES (a test adds an unshipped one). */
    models?: readonly ModelName[];
    /** Keys for `full`-mode log content (SIFT_LOG_KEYS); none: `full` stores no content. */
    logKeys?: LogKeyRing;
    /** What the log keeps of a call that asked no reasons: `light` (default), `full` or none (`asked`). */
    logReasons?: "light" | "full" | "asked";
    /** The network's settings and its secret (networkSecret); none: off. */
    network?: NetworkSettings & { secret: Buffer };
    /**
     * How old a sharing workspace must be before its reviews are kept as training examples
     * (issue 53); default the network's minimum age (SIFT_NETWORK_MIN_AGE), else 7 days.
     */
    learningMinAgeMs?: number;
    /** The sender's e-mail domain check (SIFT_EMAIL_DNS); none: off. */
    mailDomains?: MailDomainSettings;
  },
) => {
  const { redis, clock, logger } = deps;
  const verdictLog = new RedisVerdictLog({ redis, clock, keys: deps.logKeys ?? new LogKeyRing([]) });
  const recorder = new VerdictRecorder({ log: verdictLog, logger });
  // Log entries ride the usage script of their workspace's next call (no round trip of their own).
  const usage = new RedisUsageMeter({ redis, clock, rider: recorder });
  const reports = new BullReportQueue({ connection: deps.jobsRedis, prefix: BULL_PREFIX });
  // The language identifier's database is compiled now, at start, not under the first report's
  // call: compiling it holds the event loop for a few hundred milliseconds (docs/feedback.md).
  await reports.languageIdentifier();
  const inference = new NatsInferenceClient({
    nats: deps.nats,
    timeoutMs: deps.inferenceTimeoutMs,
    coalesce: deps.inferenceCoalesce ?? true,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  // usage.threshold and workspace.state webhooks: the usage script decides them (once across
  // replicas); each is queued for the gateway's delivery worker without the call waiting.
  const webhookQueue = createWebhookQueue({ connection: deps.jobsRedis, prefix: BULL_PREFIX });
  const usageEvents = usageEventsSender(new WebhookStore({ redis, clock, queue: webhookQueue }), logger);
  const app = buildClassifyApp({
    usageEvents,
    signer: deps.signer,
    clock,
    logger,
    inference: deps.tracing ? tracedInferenceClient(inference, deps.tracing) : inference,
    ...(deps.models ? { models: deps.models } : {}),
    usage,
    reports,
    verdicts: recorder,
    logReasons: deps.logReasons ?? "light",
    network:
      deps.network?.on === true
        ? new NetworkLookup({
            store: new RedisNetworkStore({ redis }),
            secret: deps.network.secret,
            settings: deps.network,
            clock,
            logger,
          })
        : undefined,
    mailDomains: deps.mailDomains
      ? new MailDomains({ settings: deps.mailDomains, clock, logger })
      : undefined,
    readiness: { ...dependencyChecks(deps), ...(deps.serving ? { serving: deps.serving } : {}) },
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    tracing: deps.tracing,
  });
  const keystore = new Keystore({ redis, clock });
  const jobs = await startUsageJobs({
    connection: deps.jobsRedis,
    keystore,
    usage,
    notices: new NoticeStore({ redis }),
    clock,
    logger,
  });
  const learner = startLearner({
    connection: deps.jobsRedis,
    prefix: BULL_PREFIX,
    store: new ReportStore({ redis }),
    nats: deps.nats,
    logger,
    keep: {
      examples: new ReportExamples({ redis }),
      createdAt: async (id) => (await keystore.getWorkspace(id))?.createdAt ?? null,
      minAgeMs: deps.learningMinAgeMs ?? deps.network?.minAgeMs ?? 7 * 24 * 3_600_000,
      now: () => clock.now(),
    },
  });
  const retention = await startLogRetention({
    connection: deps.jobsRedis,
    prefix: BULL_PREFIX,
    keystore: new Keystore({ redis, clock }),
    log: verdictLog,
    logger,
  });
  return {
    app,
    verdictLog,
    jobs: {
      stop: async () => {
        await Promise.all([jobs.stop(), learner.stop(), retention.stop(), recorder.stop()]);
        await Promise.all([reports.close(), webhookQueue.close()]);
      },
    },
  };
};
