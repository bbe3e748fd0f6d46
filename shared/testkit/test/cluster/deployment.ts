import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { ReportStore } from "@sift/feedback";
import { Keystore, RedisUsageMeter } from "@sift/keystore";
import { createRedis, systemClock, type RedisClient } from "@sift/runtime";
import {
  DEPLOYMENT_TOPOLOGY,
  createPoster,
  freePort,
  spawnService,
  startBalancer,
  stopChild,
  waitForHttp,
  type Balancer,
  type BalancedService,
  type ServiceName,
} from "../../src/index.ts";
import { CONTENTS, seedLoad, type LoadTarget } from "../faults/harness.ts";

/** The services a deployment runs replicas of, in the order a rollout replaces them. */
export const REPLICATED = ["worker", "verify", "classify", "gateway"] as const;
export type ReplicatedService = (typeof REPLICATED)[number];

/** One replica: its own process on its own port, on one of the deployment's "hosts". */
export interface Replica {
  readonly service: ReplicatedService;
  /** 0-based among the service's replicas (HAProxy's server `<service>-<index + 1>`). */
  readonly index: number;
  /** Its /readyz port. */
  readonly port: number;
  readonly host: number;
  readonly env: Record<string, string>;
  child: ChildProcess;
}

export interface Deployment extends LoadTarget {
  balancer: Balancer;
  /** The test's own client of the deployment's Redis (or Redis Cluster). */
  redis: RedisClient;
  replicas: Replica[];
  /** Starts a replica's process again on its port; resolves once its own /readyz answers 200. */
  start(replica: Replica): Promise<void>;
  /** Reports the feedback workspace holds (spam + clean), as the learner counted them. */
  reportsStored(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Issue 29's deployment as processes: DEPLOYMENT_TOPOLOGY's replicas of the gateway, verify,
 * classify and the model worker (spawnService, each on its own ports), HAProxy in front with
 * the deployed configuration (the gateway reaches verify and classify through it, one address
 * per service), on the given Redis and NATS. Replica i of each service sits on host
 * `i % hosts` (row 5 kills a host's processes together). Then, as the fault rows do: a paid
 * workspace with a classify and a challenge key, a second workspace for reports, pre-solved
 * challenges and each test content's score.
 */
export const startDeployment = async (options: {
  redis: { url: string; clusterNodes?: string };
  natsUrl: string;
  hosts?: number;
  solutions?: number;
  /** Each service's extra environment, over the deployment's own (e.g. classify's model time-out). */
  env?: Partial<Record<ReplicatedService, Record<string, string>>>;
}): Promise<Deployment> => {
  const hosts = options.hosts ?? 3;
  const logs: Deployment["logs"] = [];
  const output = (service: ServiceName, line: string) => void logs.push({ service, line });
  const ports = {} as Record<ReplicatedService, number[]>;
  for (const service of REPLICATED)
    ports[service] = await Promise.all(
      Array.from({ length: DEPLOYMENT_TOPOLOGY[service] }, () => freePort()),
    );
  const balancer = await startBalancer(ports as Record<BalancedService, number[]>);
  const common = {
    REDIS_URL: options.redis.url,
    ...(options.redis.clusterNodes ? { REDIS_CLUSTER_NODES: options.redis.clusterNodes } : {}),
    NATS_URL: options.natsUrl,
    SIFT_INTERNAL_SECRET: randomBytes(32).toString("base64url"),
    LOG_LEVEL: "info",
  };
  const envOf = async (service: ReplicatedService, port: number): Promise<Record<string, string>> => ({
    ...(await ownEnvOf(service, port)),
    ...options.env?.[service],
  });
  const ownEnvOf = async (service: ReplicatedService, port: number): Promise<Record<string, string>> => {
    if (service === "worker") return { ...common, MODEL_WORKER_PORT: String(port) };
    if (service === "verify") return { ...common, VERIFY_PORT: String(port) };
    if (service === "classify") return { ...common, CLASSIFY_PORT: String(port) };
    return {
      ...common,
      SIFT_PORT: String(port),
      SIFT_METRICS_PORT: String(await freePort()),
      VERIFY_URL: balancer.urls.verify,
      CLASSIFY_URL: balancer.urls.classify,
      // The balancer is on loopback, as every caller here is: the gateways keep its attempt id
      // (haproxy.cfg sets it over any a caller sends, so a caller reaches them with HAProxy's).
      SIFT_TRUSTED_PROXIES: "loopback",
      // One client address sends everything here, so the per-address budgets are lifted.
      SIFT_CHALLENGE_RATE: "1000000",
      SIFT_CHALLENGE_BURST: "1000000",
    };
  };
  const replicas: Replica[] = [];
  const spawn = (service: ReplicatedService, env: Record<string, string>) =>
    spawnService(service, env, { quiet: true, output });
  const start = async (replica: Replica) => {
    replica.child = spawn(replica.service, replica.env);
    await waitForHttp(`http://127.0.0.1:${replica.port}/readyz`, 60_000);
  };
  const redis = createRedis(options.redis, "sift-test");
  const poster = createPoster(balancer.urls.gateway, { maxSockets: 64, timeoutMs: 20_000 });
  const stop = async () => {
    poster.close();
    redis.disconnect();
    // SIGTERM through tsx, which passes it on; each service exits within its 10 s deadline.
    await Promise.all(replicas.map((r) => stopChild(r.child)));
    await balancer.stop();
  };
  try {
    for (const service of REPLICATED)
      for (const [index, port] of ports[service].entries()) {
        const env = { ...(await envOf(service, port)), ...options.env?.[service] };
        replicas.push({ service, index, port, host: index % hosts, env, child: spawn(service, env) });
      }
    await Promise.all(replicas.map((r) => waitForHttp(`http://127.0.0.1:${r.port}/readyz`, 60_000)));
    for (const service of ["gateway", "verify", "classify"] as const)
      for (let i = 0; i < DEPLOYMENT_TOPOLOGY[service]; i++) await balancer.waitFor(service, i, "UP");

    const keys = new Keystore({ redis, clock: systemClock });
    const meter = new RedisUsageMeter({ redis, clock: systemClock });
    const workspace = await keys.createWorkspace({ name: "rollout", plan: "paid", allowance: 1e9 });
    await keys.updateWorkspace(workspace.id, { rateLimit: 1e6, burst: 1e6 });
    const classifyKey = (await keys.createConfig(workspace.id, "classify"))!.secretKey;
    const challenge = (await keys.createConfig(workspace.id, "challenge"))!;
    await keys.updateConfig(challenge.config.id, { difficulty: 1 });
    const reporting = await keys.createWorkspace({ name: "reports", plan: "paid", allowance: 1e9 });
    await keys.updateWorkspace(reporting.id, { rateLimit: 1e6, burst: 1e6 });
    const feedbackKey = (await keys.createConfig(reporting.id, "classify"))!.secretKey;
    const feedback = new ReportStore({ redis });

    const { solutions, baseline } = await seedLoad(poster, {
      siteKey: challenge.config.siteKey!,
      classifyKey,
      solutions: options.solutions ?? 600,
    });
    return {
      balancer,
      redis,
      replicas,
      poster,
      logs,
      classifyKey,
      feedbackKey,
      challengeSecret: challenge.secretKey,
      solutions,
      baseline,
      countedBefore: CONTENTS.length,
      usage: async () => (await meter.status({ id: workspace.id, plan: "paid", allowance: 1e9 })).used30d,
      reportsStored: async () => {
        const stats = await feedback.stats(reporting.id);
        return stats.spam + stats.clean;
      },
      start,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
};
