import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { solveFromService } from "@sift/challenge";
import { ClassifyMessage, VerifyMessage } from "@sift/contracts";
import { ReportStore } from "@sift/feedback";
import { GRACE_MS, hashSecret, redisLayout, NoticeStore } from "@sift/keystore";
import { DAY, ManualClock } from "@sift/runtime";
import {
  createKey,
  post,
  startModelWorker,
  startRedisCluster,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestRedisCluster,
  type TestServer,
} from "@sift/testkit";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

/**
 * Sift on a real three-master Redis Cluster: the services and the admin CLI switched to it by
 * REDIS_CLUSTER_NODES, and the classify, verify, plans and admin paths run end to end. Any
 * script or MULTI whose keys spanned two slots would fail here with CROSSSLOT. The CLI's
 * commands run in-process on the stack's cluster client; one run of the real CLI process shows
 * REDIS_CLUSTER_NODES reaching it.
 */
let cluster: TestRedisCluster;
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
// Frozen unless a test moves it: rate-limit buckets never refill by themselves.
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  // Its own NATS, so the worker answering here is the one that reads the cluster.
  nats = await startServer("nats");
  // A REDIS_URL nothing listens on: everything must go through the cluster nodes.
  stack = await startStack({
    redisUrl: "redis://127.0.0.1:1",
    redisClusterNodes: cluster.nodes,
    natsUrl: nats.url,
    clock,
  });
  worker = await startModelWorker(nats.url, undefined, {
    redisUrl: "redis://127.0.0.1:1",
    redisClusterNodes: cluster.nodes,
  });
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await cluster?.stop();
  await nats?.stop();
});

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

/** One CLI command, in-process on the cluster client, as main.ts wires it. */
const sift = async (...argv: string[]): Promise<Record<string, string>> => {
  const result = await runCli(argv, {
    keystore: stack.keystore,
    operations: cliOperations(stack.redis),
    usage: stack.usage,
    notices: new NoticeStore({ redis: stack.redis }),
    reports: new ReportStore({ redis: stack.redis }),
  });
  expect(result).toMatchObject({ code: 0, stderr: "" });
  return JSON.parse(result.stdout) as Record<string, string>;
};

const classify = (key: string, content = "Lunch on Thursday? Bring the slides.") =>
  post(`${stack.gatewayUrl}/classify`, { content, model: "spam-standard" }, { "x-api-key": key });

const VERDICT = {
  label: expect.stringMatching(/^(spam|clean)$/),
  score: expect.any(Number),
  model: "spam-standard",
};

describe("Sift on a three-master Redis Cluster", () => {
  it("talks to a cluster of three masters", async () => {
    expect(stack.redis).toBeInstanceOf(Cluster);
    const masters = (stack.redis as Cluster).nodes("master");
    expect(masters).toHaveLength(3);
    const info = await masters[0]!.cluster("INFO");
    expect(info).toMatch(/cluster_state:ok/);
    expect(info).toMatch(/cluster_slots_assigned:16384/);
  });

  it("runs the real CLI process on the cluster from REDIS_CLUSTER_NODES alone", async () => {
    const { workspaceId } = await sift("workspace", "create", "--name", "Proc", "--plan", "free");
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "shared/cli/src/main.ts", "usage", "show", "--workspace", workspaceId!],
      {
        cwd: REPO,
        // A REDIS_URL nothing listens on: the CLI must reach the workspace through the cluster.
        env: { ...process.env, REDIS_CLUSTER_NODES: cluster.nodes, REDIS_URL: "redis://127.0.0.1:1" },
      },
    );
    expect(stderr).toBe("");
    expect(JSON.parse(stdout)).toEqual({
      state: "under",
      used30d: 0,
      allowance: 1000,
      graceEndsAt: null,
      retryAfter: 0,
    });
  });

  it("runs the admin CLI and the classify path: create, rotate, rate limit, usage, classify off", async () => {
    const { workspaceId } = await sift("workspace", "create", "--name", "Acme", "--plan", "free");
    const created = await sift("config", "create", "--workspace", workspaceId!, "--kind", "classify");
    const first = await classify(created["secretKey"]!);
    expect(first).toMatchObject({ status: 200, json: VERDICT });

    const { secretKey: fresh } = await sift("config", "rotate", "--config", created["configId"]!);
    expect(await classify(created["secretKey"]!)).toMatchObject({
      status: 401,
      json: { ok: false, message: ClassifyMessage.invalidKey },
    });
    expect(await classify(fresh!)).toMatchObject({ status: 200, json: VERDICT });

    // The key record carries the workspace's limit: the change reaches it before the CLI returns.
    expect(
      await sift("workspace", "set", "--workspace", workspaceId!, "--rate-limit", "1", "--burst", "2"),
    ).toEqual({ workspaceId, rateLimit: 1, burst: 2 });
    const burst = [await classify(fresh!), await classify(fresh!), await classify(fresh!)];
    expect(burst[0]!.status).toBe(200);
    expect(burst[2]).toMatchObject({
      status: 429,
      json: { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" },
    });
    expect(burst[2]!.headers.get("retry-after")).toBe("1");
    const counted = 2 + burst.filter((r) => r.status === 200).length;

    expect(await sift("usage", "show", "--workspace", workspaceId!)).toEqual({
      state: "under",
      used30d: counted,
      allowance: 1000,
      graceEndsAt: null,
      retryAfter: 0,
    });

    await sift("workspace", "set", "--workspace", workspaceId!, "--classify", "off");
    expect(await classify(fresh!)).toMatchObject({
      status: 403,
      json: { ok: false, message: ClassifyMessage.classifyOff },
    });
  });

  it("learns from a report and applies lists: the report store's scripts each stay on one slot", async () => {
    const { workspaceId, secretKey } = await createKey(stack.keystore, { kind: "classify", plan: "paid" });
    await stack.keystore.updateWorkspace(workspaceId, { rateLimit: 1e6, burst: 1e6 });
    const content = {
      message: "Hello, is the walnut desk from your spring catalogue still in stock? Order 5531.",
    };
    const score = async (message = content.message) => {
      const reply = await post(
        `${stack.gatewayUrl}/classify`,
        { content: { message }, model: "spam-standard" },
        { authorization: `Bearer ${secretKey}` },
      );
      return (reply.json as { score: number }).score;
    };
    expect(await score()).toBeLessThan(0.8);
    const report = await post(
      `${stack.gatewayUrl}/feedback`,
      { content, label: "spam" },
      { authorization: `Bearer ${secretKey}` },
    );
    expect(report).toMatchObject({ status: 200, json: { ok: true } });
    const resend = content.message.replace("5531", "8802");
    for (const start = Date.now(); (await score(resend)) < 0.8;) {
      expect(Date.now() - start).toBeLessThan(5_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    await sift("list", "add", "--workspace", workspaceId, "--allow", "--type", "phrase", "walnut desk");
    for (const start = Date.now(); (await score(resend)) >= 0.8;) {
      expect(Date.now() - start).toBeLessThan(5_000);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await sift("feedback", "stats", "--workspace", workspaceId)).toMatchObject({
      reports: { spam: 1, clean: 0 },
    });
  });

  it("issues, verifies and spends a challenge", async () => {
    const { siteKey, secretKey } = await createKey(stack.keystore, { kind: "challenge", plan: "paid" });
    const { solution } = await solveFromService({ siteKey: siteKey!, baseUrl: stack.gatewayUrl });
    const verify = () => post(`${stack.gatewayUrl}/verify`, { secretKey: secretKey!, solution: solution! });
    expect(await verify()).toMatchObject({ status: 200, json: { ok: true } });
    expect(await verify()).toMatchObject({ status: 200, json: { ok: false, message: VerifyMessage.spent } });
    // A challenge key is refused on classify, as on one Redis.
    expect(await classify(secretKey!)).toMatchObject({
      status: 401,
      json: { ok: false, message: ClassifyMessage.challengeKey },
    });
  });

  it("leaves exactly one working secret after concurrent rotates, the one its configuration names", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const secrets = await Promise.all(Array.from({ length: 8 }, () => stack.keystore.rotate(key.configId)));
    const resolved = await Promise.all([key.secretKey, ...secrets].map((s) => stack.keystore.resolve(s!)));
    const working = [key.secretKey, ...secrets].filter((_, i) => resolved[i] !== null);
    expect(working).toHaveLength(1);
    const config = await stack.redis.hget(redisLayout().config(key.configId), "secretHash");
    expect(hashSecret(working[0]!)).toBe(config);
    expect(await stack.redis.scard(redisLayout().retiredSecrets(key.configId))).toBe(0);
  });

  it("keeps every key record in step with its workspace when updates race creations and rotates", async () => {
    const layout = redisLayout();
    const workspace = await stack.keystore.createWorkspace({ name: "race", plan: "free" });
    const first = await stack.keystore.createConfig(workspace.id, "classify");
    const racing: Promise<unknown>[] = [];
    for (let i = 1; i <= 10; i++) {
      racing.push(stack.keystore.updateWorkspace(workspace.id, { rateLimit: i, allowance: 100 + i }));
      racing.push(stack.keystore.createConfig(workspace.id, "classify"));
      racing.push(stack.keystore.rotate(first!.config.id));
    }
    await Promise.all(racing);
    const final = (await stack.keystore.getWorkspace(workspace.id))!;
    const configIds = await stack.redis.smembers(layout.workspaceConfigs(workspace.id));
    expect(configIds).toHaveLength(11);
    for (const configId of configIds) {
      const secretHash = (await stack.redis.hget(layout.config(configId), "secretHash"))!;
      const [rateLimit, allowance] = await stack.redis.hmget(
        layout.key(secretHash),
        "rateLimit",
        "allowance",
      );
      expect({ configId, rateLimit, allowance }).toEqual({
        configId,
        rateLimit: String(final.rateLimit),
        allowance: String(final.allowance),
      });
    }
  });

  it("walks a Free workspace through its allowance: counted, grace, then 429 quota_exceeded", async () => {
    const key = await createKey(stack.keystore, { kind: "classify", allowance: 3 });
    const workspace = { id: key.workspaceId, plan: "free" as const, allowance: 3 };
    const today = Math.floor(clock.now() / DAY);
    for (let i = 0; i < 3; i++) expect((await classify(key.secretKey)).status).toBe(200);
    expect(await stack.usage.status(workspace)).toMatchObject({ state: "grace", used30d: 3 });

    clock.advance(GRACE_MS + 1);
    const paused = await classify(key.secretKey);
    expect(paused).toMatchObject({
      status: 429,
      json: { ok: false, message: ClassifyMessage.quotaExceeded, code: "quota_exceeded" },
    });
    // Until today's three calls leave the 30-day window.
    const untilUnder = (today + 30) * DAY - clock.now();
    expect(paused.headers.get("retry-after")).toBe(String(Math.ceil(untilUnder / 1000)));
    expect(await stack.usage.status(workspace)).toMatchObject({ state: "paused", used30d: 3 });
  });
});
