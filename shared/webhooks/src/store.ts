import { createHmac, randomBytes } from "node:crypto";
import type { Queue } from "bullmq";
import type { WEBHOOK_EVENTS } from "@sift/contracts";
import { redisLayout } from "@sift/keystore";
import type { Clock, RedisClient } from "@sift/runtime";

export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookRecord {
  id: string;
  url: string;
  events: WebhookEventType[];
  workspaceId?: string;
  createdAt: number;
}

/** What is posted to a receiver: DESIGN's `{id, type, createdAt, data}`. */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType;
  createdAt: string;
  data: Record<string, unknown>;
}

export interface DeliveryJob {
  webhookId: string;
  event: WebhookEvent;
}

export interface DeliveryRecord {
  deliveryId: string;
  eventId: string;
  type: string;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  delivered: boolean;
}

/**
 * The deployment's webhook signing key: SIFT_INTERNAL_SECRET's HMAC under a fixed label, so it is
 * never the secret itself. The management service and the CLI derive the same one.
 */
export const webhookSigningKey = (internalSecret: string): Buffer =>
  createHmac("sha256", internalSecret).update("sift-webhook-signing").digest();

/** The delivery log keeps each webhook's newest 1,000 attempts (a day of retries of many events). */
const DELIVERIES_KEPT = 1000;

/**
 * Webhooks in Redis, and the hand-off of an event to the delivery queue (delivery.ts).
 *
 * A webhook's signing secret is never stored: it is an HMAC of the webhook's id under a key the
 * deployment derives from its internal secret, so Sift can sign every delivery and a copy of
 * Redis signs nothing. (Changing SIFT_INTERNAL_SECRET changes every webhook's secret.)
 */
export class WebhookStore {
  readonly #redis: RedisClient;
  readonly #clock: Clock;
  readonly #layout: ReturnType<typeof redisLayout>;
  readonly #key: Buffer | undefined;
  readonly #queue: Pick<Queue, "add"> | undefined;

  constructor(deps: {
    redis: RedisClient;
    clock: Clock;
    /**
     * The deployment's webhook signing key (wiring derives it from SIFT_INTERNAL_SECRET); none: a
     * process that only emits events (classify) and never signs a delivery.
     */
    signingKey?: Buffer;
    /** Where deliveries go; none: events are dropped (a process that only reads). */
    queue?: Pick<Queue, "add"> | undefined;
    prefix?: string;
  }) {
    this.#redis = deps.redis;
    this.#clock = deps.clock;
    this.#layout = redisLayout(deps.prefix);
    this.#key = deps.signingKey;
    this.#queue = deps.queue;
  }

  /** Whether this store holds the signing key (a webhook can be created and delivered). */
  get canSign(): boolean {
    return this.#key !== undefined;
  }

  secretOf(webhookId: string): string {
    if (!this.#key) throw new Error("this webhook store has no signing key");
    return `whsec_${createHmac("sha256", this.#key).update(webhookId).digest("base64url")}`;
  }

  async create(
    input: Omit<WebhookRecord, "id" | "createdAt">,
  ): Promise<{ record: WebhookRecord; secret: string }> {
    const record: WebhookRecord = {
      id: `wh_${randomBytes(9).toString("base64url")}`,
      createdAt: this.#clock.now(),
      ...input,
    };
    await this.#redis.set(this.#layout.webhook(record.id), JSON.stringify(record));
    await this.#redis.sadd(this.#layout.webhooksOf(record.workspaceId ?? "*"), record.id);
    await this.#redis.zadd(
      this.#layout.webhooks,
      0,
      `${String(record.createdAt).padStart(15, "0")}:${record.id}`,
    );
    return { record, secret: this.secretOf(record.id) };
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const raw = await this.#redis.get(this.#layout.webhook(id));
    return raw ? (JSON.parse(raw) as WebhookRecord) : null;
  }

  async delete(id: string): Promise<WebhookRecord | null> {
    const record = await this.get(id);
    if (!record) return null;
    await this.#redis.srem(this.#layout.webhooksOf(record.workspaceId ?? "*"), id);
    await this.#redis.zrem(this.#layout.webhooks, `${String(record.createdAt).padStart(15, "0")}:${id}`);
    await this.#redis.del(this.#layout.webhook(id), this.#layout.webhookDeliveries(id));
    return record;
  }

  /** One workspace's own webhooks (not the deployment's), oldest first: a site has a handful. */
  async of(workspaceId: string): Promise<WebhookRecord[]> {
    const ids = await this.#redis.smembers(this.#layout.webhooksOf(workspaceId));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    return found
      .filter((w): w is WebhookRecord => w !== null)
      .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  }

  /** A page of webhooks in creation order (cursor: the last member, as the workspace directory's). */
  async page(limit: number, cursor: string | null): Promise<{ data: WebhookRecord[]; next: string | null }> {
    const start = cursor === null ? "-" : Buffer.concat([Buffer.from("("), Buffer.from(cursor, "base64url")]);
    const members = await this.#redis.zrangebylexBuffer(
      this.#layout.webhooks,
      start,
      "+",
      "LIMIT",
      0,
      limit + 1,
    );
    const ids = members.slice(0, limit).map((m) => m.toString().slice(16));
    const found = await Promise.all(ids.map((id) => this.get(id)));
    const last = members[limit - 1];
    return {
      data: found.filter((w): w is WebhookRecord => w !== null),
      next: members.length > limit && last ? last.toString("base64url") : null,
    };
  }

  /**
   * Queues an event for every webhook that subscribed to its type, for its workspace or for the
   * deployment. The job id is the webhook's and the event's, so an event emitted twice (a job
   * re-run) is delivered once per webhook; the receiver still dedupes on `id` (at least once).
   */
  async emit(input: {
    type: WebhookEventType;
    workspaceId?: string;
    id?: string;
    data: Record<string, unknown>;
  }) {
    if (!this.#queue) return;
    const ids = [
      ...(await this.#redis.smembers(this.#layout.webhooksOf("*"))),
      ...(input.workspaceId ? await this.#redis.smembers(this.#layout.webhooksOf(input.workspaceId)) : []),
    ];
    const event: WebhookEvent = {
      id: input.id ?? `evt_${randomBytes(12).toString("base64url")}`,
      type: input.type,
      createdAt: new Date(this.#clock.now()).toISOString(),
      data: input.data,
    };
    for (const id of ids) {
      const hook = await this.get(id);
      if (!hook || !hook.events.includes(input.type)) continue;
      await this.#queue.add("deliver", { webhookId: id, event } satisfies DeliveryJob, {
        jobId: `${id}.${event.id}`,
      });
    }
  }

  async logDelivery(webhookId: string, record: DeliveryRecord): Promise<void> {
    const key = this.#layout.webhookDeliveries(webhookId);
    await this.#redis
      .multi()
      .lpush(key, JSON.stringify(record))
      .ltrim(key, 0, DELIVERIES_KEPT - 1)
      .exec();
  }

  async deliveries(webhookId: string, limit: number): Promise<DeliveryRecord[]> {
    const rows = await this.#redis.lrange(this.#layout.webhookDeliveries(webhookId), 0, limit - 1);
    return rows.map((r) => JSON.parse(r) as DeliveryRecord);
  }
}
