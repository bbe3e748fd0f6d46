import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ReportStore } from "@sift/feedback";
import { AuditTrail, Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { operationDeps } from "@sift/operations";
import { silentLogger, systemClock } from "@sift/runtime";
import { WebhookStore, webhookSigningKey } from "@sift/webhooks";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

/**
 * `sift workspace delete`, `sift config delete` and `sift webhook …`: the operations /v1 runs
 * (doors.test.ts compares them), and how the CLI answers a caller's mistakes.
 */
let redis: Redis;
let keystore: Keystore;
let audit: AuditTrail;
let withKey: (...argv: string[]) => ReturnType<typeof runCli>;
let withoutKey: (...argv: string[]) => ReturnType<typeof runCli>;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  keystore = new Keystore({ redis, clock: systemClock });
  audit = new AuditTrail({ redis, clock: systemClock });
  const base = {
    keystore,
    usage: new RedisUsageMeter({ redis, clock: systemClock }),
    notices: new NoticeStore({ redis }),
    reports: new ReportStore({ redis }),
    audit: { trail: audit, actorId: "ann@ops-1" },
  };
  withoutKey = (...argv) => runCli(argv, { ...base, operations: cliOperations(redis) });
  const signing = operationDeps({
    redis,
    clock: systemClock,
    logger: silentLogger(),
    webhooks: new WebhookStore({ redis, clock: systemClock, signingKey: webhookSigningKey("x".repeat(32)) }),
    allowPrivateWebhooks: true,
  });
  withKey = (...argv) => runCli(argv, { ...base, operations: signing });
});
afterAll(() => redis?.quit());

const site = async () => {
  const workspace = await keystore.createWorkspace({ name: "site", plan: "free" });
  const created = (await keystore.createConfig(workspace.id, "classify"))!;
  return { workspaceId: workspace.id, configId: created.config.id, secretKey: created.secretKey };
};

describe("sift workspace delete and config delete", () => {
  it("deletes a configuration, then a site: their secrets stop at once, each change audited once", async () => {
    const s = await site();
    const config = await withoutKey("config", "delete", "--config", s.configId);
    expect([config.code, JSON.parse(config.stdout)]).toEqual([0, { configId: s.configId, deleted: true }]);
    expect(await keystore.resolve(s.secretKey)).toBeNull();
    const second = await site();
    const gone = await withoutKey("workspace", "delete", "--workspace", second.workspaceId);
    expect(JSON.parse(gone.stdout)).toEqual({ workspaceId: second.workspaceId, deleted: true });
    expect(await keystore.getWorkspace(second.workspaceId)).toBeNull();
    expect(await keystore.resolve(second.secretKey)).toBeNull();
    const actions = async (id: string) =>
      (await audit.page({ workspaceId: id, limit: 10 })).data.map((e) => [e.action, e.actor.type]);
    expect(await actions(s.workspaceId)).toEqual([["configuration.delete", "cli"]]);
    expect(await actions(second.workspaceId)).toEqual([["workspace.delete", "cli"]]);
  });

  it("answers a site or configuration that does not exist with exit 1, and a missing flag with 2", async () => {
    expect(await withoutKey("workspace", "delete", "--workspace", "ws_none")).toEqual({
      code: 1,
      stdout: "",
      stderr: "sift workspace delete: no workspace ws_none\n",
    });
    expect((await withoutKey("config", "delete", "--config", "cfg_none")).code).toBe(1);
    expect((await withoutKey("config", "delete")).code).toBe(2);
  });
});

describe("sift workspace set and create: name, external id, labels", () => {
  it("renames a site and sets its external id and labels; creates one with them", async () => {
    const s = await site();
    const external = `panel-${s.workspaceId}`;
    const set = await withoutKey(
      "workspace",
      "set",
      "--workspace",
      s.workspaceId,
      "--name",
      "Bakery",
      "--external-id",
      external,
      "--labels",
      "reseller=r12, region=eu",
    );
    expect(set.stderr).toBe("");
    expect(await keystore.getWorkspace(s.workspaceId)).toMatchObject({
      name: "Bakery",
      externalId: external,
      labels: { reseller: "r12", region: "eu" },
    });
    const created = await withoutKey(
      "workspace",
      "create",
      "--name",
      "Second",
      "--plan",
      "free",
      "--external-id",
      `${external}-2`,
      "--labels",
      "tier=gold",
    );
    const id = (JSON.parse(created.stdout) as { workspaceId: string }).workspaceId;
    expect(await keystore.getWorkspace(id)).toMatchObject({
      externalId: `${external}-2`,
      labels: { tier: "gold" },
    });
    // A taken external id: exit 2 naming the site that holds it, nothing changed.
    const taken = await withoutKey("workspace", "set", "--workspace", id, "--external-id", external);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(s.workspaceId);
    expect((await keystore.getWorkspace(id))?.externalId).toBe(`${external}-2`);
  });

  it.each([
    [["--name", ""], "name"],
    [["--name", "x".repeat(101)], "name"],
    [["--labels", "reseller"], "--labels"],
    [["--labels", "bad key=v"], "--labels"],
    [["--external-id", "a b"], "--external-id"],
  ])("refuses %j with exit 2 and changes nothing", async (flags, says) => {
    const s = await site();
    const before = await keystore.getWorkspace(s.workspaceId);
    const result = await withoutKey("workspace", "set", "--workspace", s.workspaceId, ...flags);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(says);
    expect(await keystore.getWorkspace(s.workspaceId)).toEqual(before);
  });
});

describe("sift workspace reindex", () => {
  it("reindexes the directory as an operator's change, audited by its own name", async () => {
    const since = Date.now();
    const result = JSON.parse((await withoutKey("workspace", "reindex")).stdout) as { reindexed: number };
    expect(result.reindexed).toBeGreaterThan(0);
    const { data } = await audit.page({ since, limit: 1000 });
    const entries = data.filter((e) => e.action.startsWith("workspace.reindex"));
    expect(entries.map((e) => [e.action, e.actor.type, e.after])).toContainEqual([
      "workspace.reindex",
      "cli",
      { reindexed: result.reindexed },
    ]);
    expect(data.some((e) => e.action.startsWith("cli."))).toBe(false);
  });
});

describe("sift webhook", () => {
  it("creates a site's webhook with its secret shown once, lists it, and deletes it", async () => {
    const s = await site();
    const created = await withKey(
      "webhook",
      "create",
      "--url",
      "http://127.0.0.1:9/hooks",
      "--events",
      "secret.rotated, workspace.state",
      "--workspace",
      s.workspaceId,
    );
    expect(created.stderr).toBe("");
    const { webhookId, secret } = JSON.parse(created.stdout) as { webhookId: string; secret: string };
    expect(secret).toMatch(/^whsec_/);
    const listed = JSON.parse((await withKey("webhook", "list", "--workspace", s.workspaceId)).stdout) as {
      data: Array<Record<string, unknown>>;
    };
    expect(listed.data).toEqual([
      expect.objectContaining({ id: webhookId, events: ["secret.rotated", "workspace.state"] }),
    ]);
    expect(JSON.stringify(listed)).not.toContain("whsec_");
    expect(JSON.parse((await withKey("webhook", "delete", "--webhook", webhookId)).stdout)).toEqual({
      webhookId,
      deleted: true,
    });
    const entries = (await audit.page({ workspaceId: s.workspaceId, limit: 10 })).data;
    expect(entries.map((e) => e.action)).toEqual(["webhook.create", "webhook.delete"]);
    expect(JSON.stringify(entries)).not.toContain(secret);
  });

  it.each([
    [["--url", "http://127.0.0.1:9/h", "--events", "secret.rotated,everything"], "--events"],
    [["--url", "ftp://hooks.example/h", "--events", "secret.rotated"], "url"],
    [["--events", "secret.rotated"], "--url is required"],
  ])("refuses %j with exit 2 and creates nothing", async (flags, says) => {
    const s = await site();
    const result = await withKey("webhook", "create", ...flags, "--workspace", s.workspaceId);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(says);
    expect((await audit.page({ workspaceId: s.workspaceId, limit: 10 })).data).toEqual([]);
  });

  it("refuses to create a webhook without the deployment's internal secret, saying which", async () => {
    const s = await site();
    const result = await withoutKey(
      "webhook",
      "create",
      "--url",
      "http://127.0.0.1:9/h",
      "--events",
      "secret.rotated",
      "--workspace",
      s.workspaceId,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("SIFT_INTERNAL_SECRET");
  });

  it("prints a webhook's delivery log, newest first", async () => {
    const s = await site();
    const created = await withKey(
      "webhook",
      "create",
      "--url",
      "http://127.0.0.1:9/hooks",
      "--events",
      "secret.rotated",
      "--workspace",
      s.workspaceId,
    );
    const { webhookId } = JSON.parse(created.stdout) as { webhookId: string };
    const store = new WebhookStore({ redis, clock: systemClock });
    for (const attempt of [1, 2])
      await store.logDelivery(webhookId, {
        deliveryId: `d${attempt}`,
        eventId: "evt_1",
        type: "secret.rotated",
        attempt,
        at: new Date().toISOString(),
        status: attempt === 1 ? 500 : 204,
        error: null,
        delivered: attempt === 2,
      });
    const log = JSON.parse((await withKey("webhook", "deliveries", "--webhook", webhookId)).stdout) as {
      data: Array<{ attempt: number; status: number }>;
    };
    expect(log.data.map((d) => [d.attempt, d.status])).toEqual([
      [2, 204],
      [1, 500],
    ]);
    expect((await withKey("webhook", "deliveries", "--webhook", "wh_none")).code).toBe(1);
    expect((await withKey("webhook", "deliveries", "--webhook", webhookId, "--limit", "0")).code).toBe(2);
  });

  it("answers a webhook that does not exist with exit 1", async () => {
    expect(await withKey("webhook", "delete", "--webhook", "wh_none")).toEqual({
      code: 1,
      stdout: "",
      stderr: "sift webhook delete: no webhook wh_none\n",
    });
  });
});
