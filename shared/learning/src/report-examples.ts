import type { Redis, Cluster, Result } from "ioredis";
import { decodeExample, encodeExample, type KeptExample } from "./codec.ts";

/** DESIGN.md: at most 200,000 kept reviews in the deployment, the oldest dropped first. */
export const MAX_EXAMPLES = 200_000;
/**
 * One workspace keeps at most this many (5 % of the whole): a site that reviews everything it
 * receives cannot fill the set and push every other site's reviews out, and what training reads
 * of it is bounded before training weighs it (candidate.ts caps each site's weight again).
 */
export const MAX_EXAMPLES_PER_WORKSPACE = 10_000;

/**
 * KEEP: one review. KEYS: data (hash id → record), order (zset id → reviewed at), the
 * workspace's own (zset), sites (zset workspace → kept), seq. ARGV: workspace, reviewed at,
 * record, workspace cap, total cap, the prefix of workspace sets. Past the workspace's cap its
 * oldest go; past the total, the deployment's oldest, from whichever workspace. Ids are
 * `<workspace>|<n>`, so a dropped id names the set it leaves. Every key is under `{learn}`, one
 * Redis Cluster slot, so the script may name a workspace's set from an id it pops.
 */
const KEEP = `
local id = ARGV[1] .. '|' .. redis.call('INCR', KEYS[5])
redis.call('HSET', KEYS[1], id, ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], id)
redis.call('ZADD', KEYS[3], ARGV[2], id)
redis.call('ZINCRBY', KEYS[4], 1, ARGV[1])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[4])
if over > 0 then
  local old = redis.call('ZPOPMIN', KEYS[3], over)
  for i = 1, #old, 2 do
    redis.call('ZREM', KEYS[2], old[i])
    redis.call('HDEL', KEYS[1], old[i])
  end
  redis.call('ZINCRBY', KEYS[4], -over, ARGV[1])
end
local total = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if total > 0 then
  local old = redis.call('ZPOPMIN', KEYS[2], total)
  for i = 1, #old, 2 do
    local ws = string.match(old[i], '^(.*)|[0-9]+$')
    redis.call('HDEL', KEYS[1], old[i])
    if ws then
      redis.call('ZREM', ARGV[6] .. ws, old[i])
      redis.call('ZINCRBY', KEYS[4], -1, ws)
    end
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', 0)
return id
`;

/** FORGET: every kept review of one workspace. KEYS: data, order, its set, sites. ARGV: workspace. */
const FORGET = `
local ids = redis.call('ZRANGE', KEYS[3], 0, -1)
for i = 1, #ids do
  redis.call('ZREM', KEYS[2], ids[i])
  redis.call('HDEL', KEYS[1], ids[i])
end
redis.call('DEL', KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return #ids
`;

export interface ExampleOfSite extends KeptExample {
  workspaceId: string;
}

export interface ExampleStats {
  /** Reviews kept in all. */
  kept: number;
  /** Workspaces with at least one. */
  sites: number;
}

type RedisClient = Redis | Cluster;

/**
 * The deployment's kept reviews (issue 53): for workspaces that share reports, each review's
 * hashed features and label (codec.ts), bounded in number and in each workspace's share,
 * forgotten with the workspace. The learner keeps; `sift model train` reads them in pages. The
 * class was ReviewExamples; its keys (`{learn}:ex:*`) and scripts keep their names, as
 * deployments have them.
 */
export class ReportExamples {
  readonly #redis: RedisClient;
  readonly #maxTotal: number;
  readonly #maxPerWorkspace: number;

  readonly #keys: { data: string; order: string; sites: string; seq: string; site: string };

  constructor(deps: {
    redis: RedisClient;
    maxTotal?: number;
    maxPerWorkspace?: number;
    /** The keys' hash tag (a test's own; default `{learn}`). */
    tag?: string;
  }) {
    this.#redis = deps.redis;
    const tag = deps.tag ?? "{learn}";
    if (!/^\{[^{}]+\}$/.test(tag)) throw new Error("tag must be a Redis hash tag, {…}");
    this.#keys = {
      data: `${tag}:ex:data`,
      order: `${tag}:ex:order`,
      sites: `${tag}:ex:sites`,
      seq: `${tag}:ex:seq`,
      site: `${tag}:ex:ws:`,
    };
    this.#maxTotal = deps.maxTotal ?? MAX_EXAMPLES;
    this.#maxPerWorkspace = deps.maxPerWorkspace ?? MAX_EXAMPLES_PER_WORKSPACE;
    this.#redis.defineCommand("siftKeepExample", { numberOfKeys: 5, lua: KEEP });
    this.#redis.defineCommand("siftForgetExamples", { numberOfKeys: 4, lua: FORGET });
  }

  /** Keeps one review; its id. */
  async keep(workspaceId: string, example: KeptExample): Promise<string> {
    return this.keepEncoded(workspaceId, example.reviewedAt, encodeExample(example));
  }

  /** Keeps a record encoded already (the report job carries it so). */
  async keepEncoded(workspaceId: string, reviewedAt: number, record: Buffer): Promise<string> {
    if (workspaceId.includes("|")) throw new Error("workspace id holds '|'");
    return this.#redis.siftKeepExample(
      this.#keys.data,
      this.#keys.order,
      this.#keys.site + workspaceId,
      this.#keys.sites,
      this.#keys.seq,
      workspaceId,
      String(reviewedAt),
      record,
      String(this.#maxPerWorkspace),
      String(this.#maxTotal),
      this.#keys.site,
    );
  }

  /** Forgets every review the workspace gave (it stopped sharing, or is gone); how many. */
  async forget(workspaceId: string): Promise<number> {
    return this.#redis.siftForgetExamples(
      this.#keys.data,
      this.#keys.order,
      this.#keys.site + workspaceId,
      this.#keys.sites,
      workspaceId,
    );
  }

  async stats(): Promise<ExampleStats> {
    const [kept, sites] = await Promise.all([
      this.#redis.zcard(this.#keys.order),
      this.#redis.zcard(this.#keys.sites),
    ]);
    return { kept, sites };
  }

  /** How many reviews were ever kept (dropped and forgotten ones too): what "new reviews" counts from. */
  async keptEver(): Promise<number> {
    return Number((await this.#redis.get(this.#keys.seq)) ?? 0);
  }

  async countOf(workspaceId: string): Promise<number> {
    return this.#redis.zcard(this.#keys.site + workspaceId);
  }

  /**
   * Every kept review, oldest first, read `pageSize` at a time (so a reader never holds the
   * whole set in one reply). A review kept or dropped while it reads may be missed or seen
   * twice at a page's edge: training takes the set as it was, give or take those.
   */
  async *all(pageSize = 2_000): AsyncGenerator<ExampleOfSite[]> {
    for (let start = 0; ; start += pageSize) {
      const ids = await this.#redis.zrange(this.#keys.order, start, start + pageSize - 1);
      if (ids.length === 0) return;
      const records = await this.#redis.hmgetBuffer(this.#keys.data, ...ids);
      const page: ExampleOfSite[] = [];
      ids.forEach((id, i) => {
        const record = records[i];
        const example = record ? decodeExample(record) : null;
        const workspaceId = id.slice(0, id.lastIndexOf("|"));
        if (example) page.push({ ...example, workspaceId });
      });
      yield page;
      if (ids.length < pageSize) return;
    }
  }
}

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftKeepExample(
      data: string,
      order: string,
      site: string,
      sites: string,
      seq: string,
      workspaceId: string,
      reviewedAt: string,
      record: Buffer,
      maxPerWorkspace: string,
      maxTotal: string,
      sitePrefix: string,
    ): Result<string, Context>;
    siftForgetExamples(
      data: string,
      order: string,
      site: string,
      sites: string,
      workspaceId: string,
    ): Result<number, Context>;
  }
}
