import { randomBytes } from "node:crypto";
import type { KeyKind } from "@sift/contracts";
import { Keystore, type Plan } from "@sift/keystore";
import { createRedis, redisReady, systemClock } from "@sift/runtime";
import { spawnStack } from "./processes.ts";
import { dockerAnswers, startServer } from "./servers.ts";
import { createKey } from "./stack.ts";

/** A whole Sift for a user's integration suite: call its base URL as a site's server would. */
export interface SiftUnderTest {
  /** The gateway: POST /classify, /verify, /feedback, /challenge; GET /sift.js. */
  baseUrl: string;
  redisUrl: string;
  natsUrl: string;
  /** A workspace with one configuration of `kind`, as `sift config create` makes it. */
  createKey(options: {
    kind: KeyKind;
    plan?: Plan;
    allowance?: number;
  }): Promise<{ workspaceId: string; configId: string; secretKey: string; siteKey?: string }>;
  stop(): Promise<void>;
}

export interface SiftOptions {
  /** Image names per service when a Docker engine answers (the targets of infra/docker/Dockerfile). */
  images?: Partial<Record<"gateway" | "verify" | "classify" | "model-worker", string>>;
}

/**
 * Starts Sift with its Redis and NATS, the way a user's suite wants it: from the images (one
 * container per service on a network of their own) where a Docker engine answers, otherwise
 * every service's main.ts as a local process beside local `redis-server` and `nats-server`.
 *
 *     const sift = await startSift();
 *     const { secretKey } = await sift.createKey({ kind: "classify" });
 *     await fetch(`${sift.baseUrl}/classify`, …);
 *     await sift.stop();
 */
export const startSift = async (options: SiftOptions = {}): Promise<SiftUnderTest> => {
  const redis = await startServer("redis");
  const nats = await startServer("nats");
  const backing = { redisUrl: redis.url, natsUrl: nats.url, secret: randomBytes(32).toString("base64url") };
  const started = (await dockerAnswers())
    ? await startContainers(backing, options)
    : await startProcesses(backing);
  const client = createRedis(redis.url, "sift-under-test");
  await redisReady(client);
  const keys = new Keystore({ redis: client, clock: systemClock });
  return {
    baseUrl: started.baseUrl,
    redisUrl: redis.url,
    natsUrl: nats.url,
    createKey: (o) => createKey(keys, o),
    stop: async () => {
      await started.stop();
      client.disconnect();
      await Promise.all([redis.stop(), nats.stop()]);
    },
  };
};

interface Started {
  baseUrl: string;
  stop(): Promise<void>;
}

/** What both ways of starting the services are given: the servers' URLs and the internal secret. */
interface Backing {
  redisUrl: string;
  natsUrl: string;
  secret: string;
}

const startProcesses = async ({ redisUrl, natsUrl, secret }: Backing): Promise<Started> =>
  spawnStack({ REDIS_URL: redisUrl, NATS_URL: natsUrl, SIFT_INTERNAL_SECRET: secret, LOG_LEVEL: "warn" });

/**
 * The images on a network of their own; Redis and NATS are reached through the host's mapped
 * ports, as the testcontainers servers expose them. Not run on the machine this was written on
 * (no Docker engine there): the local-process path above is what the tests exercise.
 */
const startContainers = async (
  { redisUrl, natsUrl, secret }: Backing,
  options: SiftOptions,
): Promise<Started> => {
  const { GenericContainer, Network, Wait } = await import("testcontainers");
  const image = (name: keyof NonNullable<SiftOptions["images"]>) =>
    options.images?.[name] ?? `sift/${name}:latest`;
  const network = await new Network().start();
  const viaHost = (url: string) =>
    url.replace("127.0.0.1", "host.docker.internal").replace("localhost", "host.docker.internal");
  const env = { REDIS_URL: viaHost(redisUrl), NATS_URL: viaHost(natsUrl), SIFT_INTERNAL_SECRET: secret };
  const service = (
    name: keyof NonNullable<SiftOptions["images"]>,
    port: number,
    extra: Record<string, string>,
  ) =>
    new GenericContainer(image(name))
      .withNetwork(network)
      .withNetworkAliases(name)
      .withExtraHosts([{ host: "host.docker.internal", ipAddress: "host-gateway" }])
      .withEnvironment({ ...env, ...extra })
      .withExposedPorts(port)
      .withWaitStrategy(Wait.forHttp("/readyz", port))
      .start();
  const workers = await Promise.all([
    service("model-worker", 8083, { MODEL_WORKER_PORT: "8083" }),
    service("verify", 8081, { VERIFY_PORT: "8081" }),
    service("classify", 8082, { CLASSIFY_PORT: "8082" }),
  ]);
  const gateway = await service("gateway", 8080, {
    SIFT_PORT: "8080",
    VERIFY_URL: "http://verify:8081",
    CLASSIFY_URL: "http://classify:8082",
  });
  return {
    baseUrl: `http://${gateway.getHost()}:${gateway.getMappedPort(8080)}`,
    stop: async () => {
      await Promise.all([gateway, ...workers].map((c) => c.stop()));
      await network.stop();
    },
  };
};
