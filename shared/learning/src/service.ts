import { randomBytes } from "node:crypto";
import type { Cluster, Redis, Result } from "ioredis";
import { SPAM_STANDARD, type ModelView, type TrainingView } from "@sift/contracts";
import type { ReportExamples } from "./report-examples.ts";
import type { ModelVersions } from "./versions.ts";

type RedisClient = Redis | Cluster;

/** What `sift model …` and `/v1/model…` both run on. */
export interface ModelDeps {
  examples: ReportExamples;
  versions: ModelVersions;
  /** Training asked for through /v1 (absent: none shown). */
  requests?: TrainingRequests;
  /** The shipped model's version (the committed file's metadata). */
  shipped: string;
}

/** The model in service, its candidate and the latest training request (DESIGN's status, and more). */
export const modelStatus = async (deps: ModelDeps): Promise<ModelView> => {
  const [serving, candidate, kept, training] = await Promise.all([
    deps.versions.serving(),
    deps.versions.candidate(),
    deps.examples.stats(),
    deps.requests?.latest() ?? null,
  ]);
  const info = serving ? await deps.versions.info(serving) : null;
  const candidateInfo = candidate && candidate !== serving ? await deps.versions.info(candidate) : null;
  return {
    model: SPAM_STANDARD,
    version: serving ?? deps.shipped,
    source: serving ? "deployment" : "shipped",
    trainedAt: info ? new Date(info.trainedAt).toISOString() : null,
    reviews: info?.reviews ?? 0,
    sites: info?.sites ?? 0,
    comparison: (info?.comparison ?? null) as ModelView["comparison"],
    candidate:
      candidateInfo === null
        ? null
        : {
            version: candidateInfo.version,
            trainedAt: new Date(candidateInfo.trainedAt).toISOString(),
            reviews: candidateInfo.reviews,
            sites: candidateInfo.sites,
            wins: candidateInfo.wins,
          },
    kept: { ...kept },
    shipped: deps.shipped,
    training,
  };
};

export type PromoteResult =
  { ok: true; version: string; source: "shipped" | "deployment" } | { ok: false; reason: "unknown" | "lost" };

/** Puts `version` in service: the shipped version's name puts the shipped model back. */
export const promoteModel = async (
  deps: ModelDeps,
  version: string,
  force: boolean,
): Promise<PromoteResult> => {
  if (version === deps.shipped) {
    await deps.versions.promote(null);
    return { ok: true, version, source: "shipped" };
  }
  const info = await deps.versions.info(version);
  if (!info) return { ok: false, reason: "unknown" };
  if (!info.wins && !force) return { ok: false, reason: "lost" };
  if (!(await deps.versions.promote(version))) return { ok: false, reason: "unknown" };
  return { ok: true, version, source: "deployment" };
};

/** The version in service before the last promotion back in service; null when there was none. */
export const rollbackModel = async (
  deps: ModelDeps,
): Promise<{ version: string; source: "shipped" | "deployment" } | null> => {
  const back = await deps.versions.rollback();
  if (!back) return null;
  return { version: back.version ?? deps.shipped, source: back.version ? "deployment" : "shipped" };
};

/** How long a claimed request may run before another trainer may claim it again (its trainer died). */
export const TRAINING_LEASE_MS = 30 * 60_000;

/**
 * REQUEST: KEYS the request hash. ARGV: id, now. A new request unless one is queued or running
 * (within its lease): one training at a time, and a second ask answers the pending one.
 */
const REQUEST = `
local state = redis.call('HGET', KEYS[1], 'state')
if state == 'queued' then return redis.call('HGET', KEYS[1], 'id') end
if state == 'running' and tonumber(redis.call('HGET', KEYS[1], 'leaseUntil') or '0') > tonumber(ARGV[2]) then
  return redis.call('HGET', KEYS[1], 'id')
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'state', 'queued', 'requestedAt', ARGV[2])
return ARGV[1]
`;

/**
 * CLAIM: KEYS the request hash. ARGV: now, lease (ms). The queued request (or a running one whose
 * lease ran out) becomes running under a new lease; its id, or false when there is none.
 */
const CLAIM = `
local state = redis.call('HGET', KEYS[1], 'state')
local stale = state == 'running' and tonumber(redis.call('HGET', KEYS[1], 'leaseUntil') or '0') <= tonumber(ARGV[1])
if state ~= 'queued' and not stale then return false end
redis.call('HSET', KEYS[1], 'state', 'running', 'startedAt', ARGV[1], 'leaseUntil', tonumber(ARGV[1]) + tonumber(ARGV[2]))
return redis.call('HGET', KEYS[1], 'id')
`;

/** FINISH: KEYS the request hash. ARGV: id, state, now, field, value. Only the request claimed. */
const FINISH = `
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] or redis.call('HGET', KEYS[1], 'state') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'finishedAt', ARGV[3], ARGV[4], ARGV[5])
redis.call('HDEL', KEYS[1], 'leaseUntil')
return 1
`;

/**
 * Training asked for through `POST /v1/model/candidates` (docs/decisions.md): the API's process
 * records the request and answers 202; `sift model train --requested`, run by the deployment
 * (e.g. every minute from cron) in a process of its own, claims it, trains and records the
 * outcome. One request at a time, in one hash on the model's hash tag.
 */
export class TrainingRequests {
  readonly #redis: RedisClient;
  readonly #key: string;

  constructor(deps: { redis: RedisClient; model?: string }) {
    this.#redis = deps.redis;
    this.#key = `{model:${deps.model ?? SPAM_STANDARD}}:training`;
    this.#redis.defineCommand("siftRequestTraining", { numberOfKeys: 1, lua: REQUEST });
    this.#redis.defineCommand("siftClaimTraining", { numberOfKeys: 1, lua: CLAIM });
    this.#redis.defineCommand("siftFinishTraining", { numberOfKeys: 1, lua: FINISH });
  }

  /** Asks for a training; the request (a pending one when there is one). */
  async request(now: number): Promise<TrainingView> {
    const id = `tr_${randomBytes(9).toString("base64url")}`;
    await this.#redis.siftRequestTraining(this.#key, id, String(now));
    return (await this.latest())!;
  }

  /** Claims the queued request; its id, or null when none waits. */
  async claim(now: number, leaseMs = TRAINING_LEASE_MS): Promise<string | null> {
    const id = await this.#redis.siftClaimTraining(this.#key, String(now), String(leaseMs));
    return id ? String(id) : null;
  }

  async finish(id: string, now: number, outcome: { version: string } | { error: string }): Promise<boolean> {
    const [state, field, value] =
      "version" in outcome ? ["done", "version", outcome.version] : ["failed", "error", outcome.error];
    return (await this.#redis.siftFinishTraining(this.#key, id, state, String(now), field, value)) === 1;
  }

  async latest(): Promise<TrainingView | null> {
    const h = await this.#redis.hgetall(this.#key);
    if (!h["id"]) return null;
    const at = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : null);
    return {
      id: h["id"],
      state: h["state"] as TrainingView["state"],
      requestedAt: at(h["requestedAt"])!,
      startedAt: at(h["startedAt"]),
      finishedAt: at(h["finishedAt"]),
      version: h["version"] ?? null,
      error: h["error"] ?? null,
    };
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftRequestTraining(key: string, id: string, now: string): Result<string, Context>;
    siftClaimTraining(key: string, now: string, leaseMs: string): Result<string | null, Context>;
    siftFinishTraining(
      key: string,
      id: string,
      state: string,
      now: string,
      field: string,
      value: string,
    ): Result<number, Context>;
  }
}
