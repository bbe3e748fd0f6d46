import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { startServer, type TestServer } from "./servers.ts";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
    natsUrl: string;
  }
}

/**
 * One Redis and one NATS for the whole integration run. Tests isolate themselves by using fresh
 * ids (and their own Redis key prefix where they count things). Tests that kill a server start
 * their own with startServer().
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers: TestServer[] = await Promise.all([startServer("redis"), startServer("nats")]);
  const [redis, nats] = servers as [TestServer, TestServer];
  project.provide("redisUrl", redis.url);
  project.provide("natsUrl", nats.url);
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
}
