// Every process the bench loads, each on its own: Sift (four services from the compiled build),
// the same Sift chain with a worker that answers at once, the bare chain, and a batch-1 worker.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import {
  freePort,
  ROOT,
  spawnService,
  spawnStack,
  startServer,
  stopChild,
  waitForHttp,
  type TestServer,
} from "../../src/index.ts";

const TSX = `${ROOT}node_modules/.bin/tsx`;
const HERE = "shared/testkit/bench/speed";

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

export type Chains = Awaited<ReturnType<typeof startChains>>;

export const startChains = async (options: { built: boolean }) => {
  const servers: TestServer[] = [];
  const server = async (kind: "redis" | "nats") => {
    const s = await startServer(kind);
    servers.push(s);
    return s;
  };
  const redis = await server("redis");
  const [nats, noopNats, batchOneNats] = await Promise.all([server("nats"), server("nats"), server("nats")]);
  const internalSecret = randomBytes(32).toString("base64url");
  const common = { REDIS_URL: redis.url, SIFT_INTERNAL_SECRET: internalSecret };
  // Budgets far above any load here: the bench measures the path, not the limiter's refusals
  // (the limiter still runs on every call: a workspace's limit is raised, not switched off).
  const extra = { gateway: { SIFT_TEST_KEY_RATE: "1000000", SIFT_TEST_KEY_BURST: "1000000" } };
  const built = options.built;
  const [sift, noop] = await Promise.all([
    spawnStack({ ...common, NATS_URL: nats.url }, { built, extra }),
    spawnStack({ ...common, NATS_URL: noopNats.url }, { built, extra, without: ["worker"] }),
  ]);
  const noopWorker = await spawnScript("noop-worker.ts", [noopNats.url]);

  const [barePort, bareGatewayPort, batchOnePort] = [await freePort(), await freePort(), await freePort()];
  const bareService = await spawnScript("bare.ts", ["service", String(barePort)]);
  const bareGateway = await spawnScript("bare.ts", [
    "gateway",
    String(bareGatewayPort),
    `http://127.0.0.1:${barePort}`,
  ]);
  const batchOne = spawnService(
    "worker",
    {
      NATS_URL: batchOneNats.url,
      REDIS_URL: redis.url,
      MODEL_WORKER_PORT: String(batchOnePort),
      SIFT_BATCH_WINDOW_MS: "0",
      SIFT_BATCH_MAX_ITEMS: "1",
    },
    { quiet: true, built },
  );
  await waitForHttp(`http://127.0.0.1:${batchOnePort}/readyz`);

  // The levers, each one process changed beside Sift's own, on the same services: a gateway
  // without the key cache, and a gateway run from its TypeScript sources by tsx.
  const leverGateway = async (env: Record<string, string>, leverBuilt: boolean) => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const child = spawnService(
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
      { quiet: true, built: leverBuilt },
    );
    await waitForHttp(`http://127.0.0.1:${port}/readyz`);
    return { child, url: `http://127.0.0.1:${port}` };
  };
  const noKeyCache = await leverGateway({ SIFT_KEY_CACHE_MS: "0" }, built);
  const fromSources = await leverGateway({}, false);
  // A classify service that sends one NATS request per submission, beside Sift's own.
  const noCoalescePort = await freePort();
  const noCoalesce = spawnService(
    "classify",
    { ...common, NATS_URL: nats.url, CLASSIFY_PORT: String(noCoalescePort), SIFT_INFERENCE_COALESCE: "off" },
    { quiet: true, built },
  );
  await waitForHttp(`http://127.0.0.1:${noCoalescePort}/healthz`);

  return {
    redisUrl: redis.url,
    natsUrl: nats.url,
    batchOneNatsUrl: batchOneNats.url,
    internalSecret,
    sift,
    noop,
    bare: { url: `http://127.0.0.1:${bareGatewayPort}` },
    levers: {
      noKeyCache: noKeyCache.url,
      fromSources: fromSources.url,
      noCoalesce: `http://127.0.0.1:${noCoalescePort}`,
    },
    /** The processes whose memory the report shows: Sift's four services. */
    pids: Object.fromEntries([...sift.children].map(([name, child]) => [name, child.pid!])),
    stop: async () => {
      await Promise.all([
        sift.stop(),
        noop.stop(),
        ...[noopWorker, bareService, bareGateway, batchOne, noKeyCache.child, fromSources.child].map(
          stopChild,
        ),
      ]);
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
};
