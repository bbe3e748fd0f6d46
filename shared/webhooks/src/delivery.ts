import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import { isIP } from "node:net";
import https from "node:https";
import { Queue, Worker, type ConnectionOptions, type Job } from "bullmq";
import type { Clock, Logger } from "@sift/runtime";
import { isPrivateAddress } from "./addresses.ts";
import type { DeliveryJob, WebhookStore } from "./store.ts";

export const WEBHOOK_QUEUE = "sift-webhooks";

/**
 * Retries: 1 s doubling to 15 minutes, then every 15 minutes, for 24 h (DESIGN): 10 doubling
 * steps (~17 min) and 95 more at the cap cover a day, so a receiver down for ten minutes loses
 * nothing and one down all day gets the event once it is back.
 */
export const RETRY = { firstMs: 1000, capMs: 15 * 60 * 1000, attempts: 105 };
export const retryDelay = (attemptsMade: number): number =>
  Math.min(RETRY.firstMs * 2 ** Math.max(0, attemptsMade - 1), RETRY.capMs);

/** A receiver gets 10 s to answer (Stripe's and GitHub's order of time-out). */
const TIMEOUT_MS = 10_000;

/** `Sift-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (DESIGN). */
export const signatureHeader = (secret: string, body: string, unixSeconds: number): string =>
  `t=${unixSeconds},v1=${createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex")}`;

/**
 * One POST of an event, resolving its host through a lookup that refuses private addresses
 * (unless allowed): checked when it connects, so a name that resolved to a public address at
 * creation and to 127.0.0.1 now (DNS rebinding) still reaches nothing inside.
 */
export const postEvent = (
  url: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
): Promise<number> =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    // An address literal is connected to without a lookup: checked here instead.
    const literal = target.hostname.replace(/^\[|\]$/g, "");
    if (!allowPrivate && isIP(literal) !== 0 && isPrivateAddress(literal))
      return reject(new Error(`refused private address ${literal}`));
    const guarded = (
      host: string,
      options: object,
      done: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ) =>
      dnsLookup(host, { ...options, all: true }, (err, addresses) => {
        if (err) return done(err, []);
        const bad = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address));
        if (bad)
          return done(
            Object.assign(new Error(`refused private address ${bad.address}`), { code: "EPRIVATE" }),
            [],
          );
        done(null, addresses);
      });
    const request = (target.protocol === "https:" ? https : http).request(
      target,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
        lookup: guarded as never,
        timeout: TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
    request.on("error", reject);
    request.end(body);
  });

/** The delivery queue: each job one event for one webhook, retried with RETRY's backoff. */
export const createWebhookQueue = (deps: { connection: ConnectionOptions; prefix: string }): Queue =>
  new Queue(WEBHOOK_QUEUE, {
    connection: deps.connection,
    prefix: deps.prefix,
    defaultJobOptions: {
      attempts: RETRY.attempts,
      backoff: { type: "sift" },
      removeOnComplete: { age: 24 * 3600, count: 10_000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    },
  });

/**
 * The delivery worker: POSTs each job's event, signed, until a 2xx (a throw is BullMQ's retry);
 * every attempt is in the webhook's delivery log.
 */
export const startWebhookWorker = (deps: {
  connection: ConnectionOptions;
  prefix: string;
  store: WebhookStore;
  clock: Clock;
  logger: Logger;
  allowPrivate: boolean;
}): { stop(): Promise<void> } => {
  const deliver = async (job: Job<DeliveryJob>) => {
    const { webhookId, event } = job.data;
    const hook = await deps.store.get(webhookId);
    if (!hook) return { skipped: "webhook deleted" };
    const body = JSON.stringify(event);
    const t = Math.floor(deps.clock.now() / 1000);
    const attempt = job.attemptsMade + 1;
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await postEvent(
        hook.url,
        body,
        {
          "sift-signature": signatureHeader(deps.store.secretOf(webhookId), body, t),
          "user-agent": "Sift-Webhooks/1",
        },
        deps.allowPrivate,
      );
    } catch (err) {
      error = (err as Error).message;
    }
    const delivered = status !== null && status >= 200 && status < 300;
    await deps.store.logDelivery(webhookId, {
      deliveryId: `${job.id}.${attempt}`,
      eventId: event.id,
      type: event.type,
      attempt,
      at: new Date(deps.clock.now()).toISOString(),
      status,
      error,
      delivered,
    });
    if (!delivered) throw new Error(error ?? `receiver answered ${status}`);
    return { status };
  };
  const worker = new Worker<DeliveryJob>(WEBHOOK_QUEUE, deliver, {
    connection: deps.connection,
    prefix: deps.prefix,
    concurrency: 16,
    settings: { backoffStrategy: (attemptsMade: number) => retryDelay(attemptsMade) },
  });
  worker.on("failed", (job, err) =>
    deps.logger.warn(
      { jobId: job?.id, attempt: job?.attemptsMade, err: err.message },
      "webhook delivery failed",
    ),
  );
  return { stop: () => worker.close() };
};
