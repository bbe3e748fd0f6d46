import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { hashSecret, Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { ReportStore } from "@sift/feedback";
import { systemClock } from "@sift/runtime";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

let redis: Redis;
let keystore: Keystore;
let cli: (...argv: string[]) => ReturnType<typeof runCli>;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  keystore = new Keystore({ redis, clock: systemClock });
  const deps = {
    keystore,
    operations: cliOperations(redis),
    usage: new RedisUsageMeter({ redis, clock: systemClock }),
    notices: new NoticeStore({ redis }),
    reports: new ReportStore({ redis }),
  };
  cli = (...argv) => runCli(argv, deps);
});
afterAll(() => redis?.quit());

const ok = async (...argv: string[]) => {
  const result = await cli(...argv);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, string>;
};

describe("sift admin CLI", () => {
  it("creates a workspace and both kinds of configuration", async () => {
    const { workspaceId } = await ok(
      "workspace",
      "create",
      "--name",
      "Acme",
      "--plan",
      "free",
      "--allowance",
      "50",
    );
    expect(workspaceId).toMatch(/^ws_/);
    expect(await keystore.getWorkspace(workspaceId!)).toMatchObject({
      name: "Acme",
      plan: "free",
      allowance: 50,
      classify: true,
    });

    const classify = await ok("config", "create", "--workspace", workspaceId!, "--kind", "classify");
    expect(Object.keys(classify).sort()).toEqual(["configId", "secretKey"]);
    const challenge = await ok("config", "create", "--workspace", workspaceId!, "--kind", "challenge");
    expect(Object.keys(challenge).sort()).toEqual(["configId", "secretKey", "siteKey"]);
    expect(await keystore.resolve(classify["secretKey"]!)).toMatchObject({ kind: "classify", workspaceId });
    expect(await keystore.resolve(challenge["secretKey"]!)).toMatchObject({ kind: "challenge", workspaceId });
  });

  it("sets classify, plan, allowance and rate limit", async () => {
    const { workspaceId } = await ok("workspace", "create", "--name", "B", "--plan", "paid");
    await ok(
      "workspace",
      "set",
      "--workspace",
      workspaceId!,
      "--classify",
      "off",
      "--plan",
      "free",
      "--allowance",
      "7",
    );
    await ok("workspace", "set", "--workspace", workspaceId!, "--rate-limit", "5", "--burst", "9");
    expect(await keystore.getWorkspace(workspaceId!)).toMatchObject({
      classify: false,
      plan: "free",
      allowance: 7,
      rateLimit: 5,
      burst: 9,
    });
  });

  it("rotates a key with a grace: the old one resolves until previousValidUntil, and a bad grace changes nothing", async () => {
    const { workspaceId } = await ok("workspace", "create", "--name", "R", "--plan", "free");
    const { configId, secretKey } = await ok(
      "config",
      "create",
      "--workspace",
      workspaceId!,
      "--kind",
      "classify",
    );
    for (const grace of ["86401", "-1", "soon"]) {
      const refused = await cli("config", "rotate", "--config", configId!, "--grace-seconds", grace);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/^sift config rotate: .*grace/i);
    }
    expect(await keystore.resolve(secretKey!)).not.toBeNull();
    const before = Date.now();
    const rotated = await ok("config", "rotate", "--config", configId!, "--grace-seconds", "600");
    expect(rotated.secretKey).not.toBe(secretKey);
    const until = Date.parse(rotated.previousValidUntil!);
    expect(until).toBeGreaterThanOrEqual(before + 600_000);
    expect(until).toBeLessThan(Date.now() + 600_000 + 1_000);
    // Both work during the grace.
    expect(await keystore.resolve(secretKey!)).not.toBeNull();
    expect(await keystore.resolve(rotated.secretKey!)).not.toBeNull();
    const missing = await cli("config", "rotate", "--config", "cfg_nope");
    expect([missing.code, missing.stderr]).toEqual([1, "sift config rotate: no configuration cfg_nope\n"]);
  });

  it("rotates a key: the old one stops resolving at once", async () => {
    const { workspaceId } = await ok("workspace", "create", "--name", "C", "--plan", "free");
    const { configId, secretKey } = await ok(
      "config",
      "create",
      "--workspace",
      workspaceId!,
      "--kind",
      "classify",
    );
    const { secretKey: fresh } = await ok("config", "rotate", "--config", configId!);
    expect(fresh).not.toBe(secretKey);
    expect(await keystore.resolve(secretKey!)).toBeNull();
    expect(await keystore.resolve(fresh!)).toMatchObject({ configId });
    expect(await redis.exists(`sift:key:${hashSecret(secretKey!)}`)).toBe(0);
  });

  it("sets a challenge configuration's difficulty and life", async () => {
    const { workspaceId } = await ok("workspace", "create", "--name", "F", "--plan", "free");
    const { configId } = await ok("config", "create", "--workspace", workspaceId!, "--kind", "challenge");
    await ok("config", "set", "--config", configId!, "--difficulty", "10", "--challenge-ttl", "120");
    expect(await keystore.getConfig(configId!)).toMatchObject({ difficulty: 10, challengeTtlMs: 120_000 });
    expect((await keystore.getConfig(configId!))!.adaptive).toBeUndefined();
    expect(await ok("config", "set", "--config", configId!, "--adaptive", "on")).toEqual({
      configId,
      adaptive: true,
    });
    expect(await keystore.getConfig(configId!)).toMatchObject({ difficulty: 10, adaptive: true });
    await ok("config", "set", "--config", configId!, "--adaptive", "off");
    expect(await keystore.getConfig(configId!)).toMatchObject({ adaptive: false });
  });

  it("shows usage in the documented shape", async () => {
    const { workspaceId } = await ok(
      "workspace",
      "create",
      "--name",
      "D",
      "--plan",
      "free",
      "--allowance",
      "3",
    );
    expect(await ok("usage", "show", "--workspace", workspaceId!)).toEqual({
      state: "under",
      used30d: 0,
      allowance: 3,
      graceEndsAt: null,
      retryAfter: 0,
    });
  });

  it.each([
    [["workspace", "create", "--name", "x", "--plan", "gold"], 2, /--plan: "gold" is not valid/],
    [["workspace", "create", "--plan", "free"], 2, /--name is required/],
    [["workspace", "create", "--name", "x", "--plan", "free", "--allowance", "-1"], 2, /--allowance/],
    [
      ["workspace", "create", "--name", "x", "--plan", "free", "--colour", "red"],
      2,
      /Unknown option '--colour'/,
    ],
    [["workspace", "set", "--workspace", "ws_nope", "--classify", "on"], 1, /no workspace ws_nope/],
    [["workspace", "set", "--workspace", "ws_nope", "--classify", "maybe"], 2, /--classify/],
    [["config", "create", "--workspace", "ws_nope", "--kind", "classify"], 1, /no workspace/],
    [["config", "create", "--workspace", "ws_nope", "--kind", "spam"], 2, /--kind/],
    [["key", "reroll", "--config", "cfg_nope"], 1, /no configuration cfg_nope/],
    [["config", "set", "--config", "cfg_nope", "--difficulty", "25"], 2, /--difficulty: "25" is not valid/],
    [
      ["config", "set", "--config", "cfg_nope", "--challenge-ttl", "3601"],
      2,
      /--challenge-ttl: "3601" is not valid/,
    ],
    [["config", "set", "--config", "cfg_nope", "--difficulty", "9"], 1, /no configuration cfg_nope/],
    [["config", "set", "--config", "cfg_nope", "--adaptive", "yes"], 2, /--adaptive: "yes" is not valid/],
    [["frobnicate"], 2, /unknown command/],
  ])("refuses %j with exit %i and a message on stderr", async (argv, code, message) => {
    const result = await cli(...(argv as string[]));
    expect(result.code).toBe(code);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
  });

  // Each run starts pnpm through npx: seconds each on a loaded 2-core machine.
  it("runs as `pnpm --silent sift` with JSON on stdout and exit codes", { timeout: 120_000 }, async () => {
    const run = promisify(execFile);
    const env = { ...process.env, REDIS_URL: inject("redisUrl") };
    const { stdout } = await run(
      "npx",
      ["-y", "pnpm@10", "--silent", "sift", "workspace", "create", "--name", "E", "--plan", "paid"],
      { env },
    );
    expect(JSON.parse(stdout)).toEqual({ workspaceId: expect.stringMatching(/^ws_/) });
    const failed = await run(
      "npx",
      ["-y", "pnpm@10", "--silent", "sift", "key", "reroll", "--config", "cfg_missing"],
      { env },
    ).catch((err: { code: number; stderr: string; stdout: string }) => err);
    expect(failed).toMatchObject({ code: 1, stdout: "" });
    expect((failed as { stderr: string }).stderr).toMatch(/no configuration cfg_missing/);
  });
});
