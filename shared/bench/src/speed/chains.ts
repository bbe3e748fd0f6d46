// Every process the bench loads, each on its own: Sift (four services from the compiled build),
// the same Sift chain with a worker that answers at once, the bare chain, a batch-1 worker, and
// the lever processes (one setting changed beside Sift's own, on the same services).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import type { RedisTarget } from "@sift/runtime";
import {
  freePort,
  ROOT,
  spawnService,
  spawnStack,
  startReplicatedCluster,
  startServer,
  stopChild,
  waitForHttp,
  type ServiceName,
} from "@sift/testkit";

const TSX = `${ROOT}node_modules/.bin/tsx`;
const HERE = "shared/bench/src/speed";

/** A bench script as its own process, resolved once it prints "ready". */
const spawnScript = async (file: string, args: string[]): Promise<ChildProcess> => {
  const child = spawn(TSX, [`${HERE}/${file}`, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => line === "ready" && resolve());
    child.once("exit", (code) => reject(new Error(`${file} exited (${code}) before it was ready`)));
  });
  child.stdout!.resume();
  return child;
};

/** One service process, resolved once `probe` (a path on `port`) answers. */
const spawnReady = async (
  name: ServiceName,
  env: Record<string, string>,
  port: number,
  probe: string,
  built: boolean,
) => {
  const child = spawnService(name, env, { quiet: true, built });
  await waitForHttp(`http://127.0.0.1:${port}${probe}`);
  return child;
};

/** Where the bench's Redis runs: one server, or a Redis Cluster of 3 masters each with a replica. */
export type RedisTopology = "single" | "cluster";

/**
 * The bench's Redis as every process here reaches it: the target for the bench's own client and
 * the environment each service gets. The cluster is the deployment's (3 + 3, the production
 * redis.conf) with clients reaching each master directly, no test proxy in between.
 */
const startRedis = async (
  topology: RedisTopology,
): Promise<{ target: RedisTarget; env: Record<string, string>; stop(): Promise<void> }> => {
  if (topology === "single") {
    const server = await startServer("redis");
    return { target: { url: server.url }, env: { REDIS_URL: server.url }, stop: server.stop };
  }
  const cluster = await startReplicatedCluster({ proxies: false });
  // REDIS_URL is required by the services' configuration and unused beside REDIS_CLUSTER_NODES.
  const url = "redis://127.0.0.1:1";
  return {
    target: { url, clusterNodes: cluster.nodes },
    env: { REDIS_URL: url, REDIS_CLUSTER_NODES: cluster.nodes },
    stop: cluster.stop,
  };
};

export type Chains = Awaited<ReturnType<typeof startChains>>;

export const startChains = async (options: { built: boolean; redis: RedisTopology }) => {
  const built = options.built;
  const [redis, nats, noopNats, batchOneNats] = await Promise.all([
    startRedis(options.redis),
    startServer("nats"),
    startServer("nats"),
    startServer("nats"),
  ]);
  const internalSecret = randomBytes(32).toString("base64url");
  const common = {
    ...redis.env,
    SIFT_INTERNAL_SECRET: internalSecret,
    // A key for `full`-mode verdict log content (the log scenario's full workspace).
    SIFT_LOG_KEYS: `bench:${randomBytes(32).toString("base64")}`,
    // The network's whole cost (docs/network.md): the bench's new workspaces give, not only ask.
    SIFT_NETWORK_MIN_AGE: "0",
  };
  // Budgets far above any load here: the bench measures the path, not the limiter's refusals
  // (the limiter still runs on every call: a workspace's limit is raised, not switched off).
  const extra = { gateway: { SIFT_TEST_KEY_RATE: "1000000", SIFT_TEST_KEY_BURST: "1000000" } };
  const ports = {
    bare: await freePort(),
    bareGateway: await freePort(),
    batchOne: await freePort(),
    noKeyCache: [await freePort(), await freePort()],
    fromSources: [await freePort(), await freePort()],
    noCoalesce: await freePort(),
    logReasonsAsked: await freePort(),
  };
  const [sift, noop, noopWorker, bareService, bareGateway, batchOne] = await Promise.all([
    spawnStack({ ...common, NATS_URL: nats.url }, { built, extra }),
    spawnStack({ ...common, NATS_URL: noopNats.url }, { built, extra, without: ["worker"] }),
    spawnScript("noop-worker.ts", [noopNats.url]),
    spawnScript("bare.ts", ["service", String(ports.bare)]),
    spawnScript("bare.ts", ["gateway", String(ports.bareGateway), `http://127.0.0.1:${ports.bare}`]),
    spawnReady(
      "worker",
      {
        NATS_URL: batchOneNats.url,
        ...redis.env,
        MODEL_WORKER_PORT: String(ports.batchOne),
        SIFT_BATCH_WINDOW_MS: "0",
        SIFT_BATCH_MAX_ITEMS: "1",
      },
      ports.batchOne,
      "/readyz",
      built,
    ),
  ]);

  // The levers: a gateway without the key cache, a gateway run from its TypeScript sources by
  // tsx, a classify service that sends one NATS request per submission, and one whose verdict
  // log keeps reasons only when the caller asked (SIFT_LOG_REASONS=asked).
  const leverGateway = ([port, metricsPort]: number[], env: Record<string, string>, leverBuilt: boolean) =>
    spawnReady(
      "gateway",
      {
        ...common,
        ...extra.gateway,
        NATS_URL: nats.url,
        SIFT_PORT: String(port),
        SIFT_METRICS_PORT: String(metricsPort),
        VERIFY_URL: `http://127.0.0.1:${sift.ports.verify}`,
        CLASSIFY_URL: `http://127.0.0.1:${sift.ports.classify}`,
        ...env,
      },
      port!,
      "/readyz",
      leverBuilt,
    );
  const levers = await Promise.all([
    leverGateway(ports.noKeyCache, { SIFT_KEY_CACHE_MS: "0" }, built),
    leverGateway(ports.fromSources, {}, false),
    spawnReady(
      "classify",
      {
        ...common,
        NATS_URL: nats.url,
        CLASSIFY_PORT: String(ports.noCoalesce),
        SIFT_INFERENCE_COALESCE: "off",
      },
      ports.noCoalesce,
      "/healthz",
      built,
    ),
    // The verdict log's lever: log entries keep reasons only when the caller asked for them.
    spawnReady(
      "classify",
      {
        ...common,
        NATS_URL: nats.url,
        CLASSIFY_PORT: String(ports.logReasonsAsked),
        SIFT_LOG_REASONS: "asked",
      },
      ports.logReasonsAsked,
      "/healthz",
      built,
    ),
  ]);

  const url = (port: number | undefined) => `http://127.0.0.1:${port}`;
  return {
    /** The bench's own Redis client target (createRedis). */
    redis: redis.target,
    /** One server's URL, for the scenarios that make a client of their own (single Redis only). */
    redisUrl: redis.target.url,
    natsUrl: nats.url,
    batchOneNatsUrl: batchOneNats.url,
    noopNatsUrl: noopNats.url,
    internalSecret,
    /** The environment every Sift service here gets (another stack of the same Sift: stages.ts). */
    common,
    sift,
    noop,
    bare: { url: url(ports.bareGateway), serviceUrl: url(ports.bare) },
    levers: {
      noKeyCache: url(ports.noKeyCache[0]),
      fromSources: url(ports.fromSources[0]),
      noCoalesce: url(ports.noCoalesce),
      logReasonsAsked: url(ports.logReasonsAsked),
    },
    /** The processes whose memory the report shows: Sift's four services. */
    pids: Object.fromEntries([...sift.children].map(([name, child]) => [name, child.pid!])),
    /** The classify process whose log keeps reasons only when asked (its CPU counts in the log scenario). */
    logReasonsAskedPid: levers[3]!.pid!,
    stop: async () => {
      const children = [noopWorker, bareService, bareGateway, batchOne, ...levers];
      await Promise.all([sift.stop(), noop.stop(), ...children.map((c) => stopChild(c))]);
      await Promise.all([redis, nats, noopNats, batchOneNats].map((s) => s.stop()));
    },
  };
};
