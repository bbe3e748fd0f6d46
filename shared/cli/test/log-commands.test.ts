import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { ReportStore } from "@sift/feedback";
import { systemClock } from "@sift/runtime";
import { DEFAULT_LOG_SETTINGS, LogKeyRing, RedisVerdictLog } from "@sift/verdicts";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

let redis: Redis;
let keystore: Keystore;
let verdicts: RedisVerdictLog;
let cli: (...argv: string[]) => ReturnType<typeof runCli>;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  keystore = new Keystore({ redis, clock: systemClock });
  verdicts = new RedisVerdictLog({ redis, clock: systemClock, keys: new LogKeyRing([]) });
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

describe("sift workspace set and forget-log for the verdict log", () => {
  it("sets privacy, retention and maximum on the workspace and its key records", async () => {
    const { id } = await keystore.createWorkspace({ name: "Log", plan: "free" });
    const created = await keystore.createConfig(id, "classify");
    const set = await cli(
      "workspace",
      "set",
      "--workspace",
      id,
      "--log-privacy",
      "full",
      "--log-retention-days",
      "30",
      "--log-max-entries",
      "500",
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      logPrivacy: "full",
      logRetentionDays: 30,
      logMaxEntries: 500,
    });
    expect(await keystore.getWorkspace(id)).toMatchObject({ logPrivacy: "full", logRetentionDays: 30 });
    expect((await keystore.resolve(created!.secretKey))?.log).toEqual({
      privacy: "full",
      retentionDays: 30,
      maxEntries: 500,
    });
  });

  it("refuses modes and numbers outside the bounds", async () => {
    const { id } = await keystore.createWorkspace({ name: "Log", plan: "free" });
    for (const [flag, value] of [
      ["--log-privacy", "all"],
      ["--log-retention-days", "91"],
      ["--log-retention-days", "-1"],
      ["--log-max-entries", "0"],
    ]) {
      expect((await cli("workspace", "set", "--workspace", id, flag!, value!)).code).toBe(2);
    }
  });

  it("reads a workspace without log fields as the defaults", async () => {
    const { id } = await keystore.createWorkspace({ name: "Old", plan: "free" });
    const created = await keystore.createConfig(id, "classify");
    expect((await keystore.resolve(created!.secretKey))?.log).toEqual(DEFAULT_LOG_SETTINGS);
  });

  it("forgets a workspace's log in one command", async () => {
    const { id } = await keystore.createWorkspace({ name: "Forget", plan: "free" });
    await verdicts.append(
      {
        time: Date.now(),
        workspaceId: id,
        configId: "c",
        operation: "verify",
        ok: true,
        reasons: [],
        listHits: [],
      },
      DEFAULT_LOG_SETTINGS,
    );
    const result = await cli("workspace", "forget-log", "--workspace", id);
    expect(JSON.parse(result.stdout)).toEqual({ workspaceId: id, forgotten: true });
    expect((await verdicts.list(id)).verdicts).toEqual([]);
    expect((await cli("workspace", "forget-log", "--workspace", "ws_nope")).code).toBe(1);
  });
});
