import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { Keystore, redisLayout, reindex } from "@sift/keystore";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { operatorToken, runLabel, v1 } from "./helpers.ts";

/**
 * What a deployment carries from before, or from a create that died half-way: an external id
 * claimed for a workspace that was never written must not block a retry, one whose workspace was
 * written but not listed is listed by the retry's 409, and the workspace directory is built on
 * start (Keystore.upgradeDirectory) without a manual `sift workspace reindex`.
 */
let stack: Stack;
let nats: TestServer;
let token: string;
const layout = redisLayout();

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  token = await operatorToken(stack);
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

describe("external id claims left behind", () => {
  it("takes over a claim whose workspace was never written", async () => {
    const externalId = `panel-${runLabel()}`;
    await stack.redis.hset(layout.externalIds, externalId, "ws_neverwritten");
    const made = await v1(stack, "POST", "/v1/workspaces", {
      token,
      body: { name: "Retry", plan: "free", externalId },
    });
    expect(made.status).toBe(201);
    const found = await v1(stack, "GET", `/v1/workspaces?externalId=${externalId}`, { token });
    expect((found.body["data"] as Array<{ id: string }>).map((w) => w.id)).toEqual([made.body["id"]]);
    // And it is held now: a second create is the usual 409 naming it.
    const again = await v1(stack, "POST", "/v1/workspaces", {
      token,
      body: { name: "Retry", plan: "free", externalId },
    });
    expect(again).toMatchObject({ status: 409, body: { code: "conflict", id: made.body["id"] } });
  });

  it("lists a workspace whose create died after its claim, and names it in the retry's 409", async () => {
    const label = runLabel();
    const externalId = `panel-${label}`;
    const created = await stack.keystore.createWorkspaceUnique({
      name: "Half made",
      plan: "free",
      externalId,
      labels: { run: label },
    });
    if (!created.ok) throw new Error("external id taken");
    const half = created.workspace;
    // As if the process died after claiming: in no list.
    await reindex(stack.redis, layout, half, null);
    await stack.redis.srem(layout.workspaces, half.id);
    const listed = async () =>
      (
        (await v1(stack, "GET", `/v1/workspaces?label=run:${label}`, { token })).body["data"] as Array<{
          id: string;
        }>
      ).map((w) => w.id);
    expect(await listed()).toEqual([]);

    const retry = await v1(stack, "POST", "/v1/workspaces", {
      token,
      body: { name: "Half made", plan: "free", externalId, labels: { run: label } },
    });
    expect(retry).toMatchObject({ status: 409, body: { code: "conflict", id: half.id } });
    expect(await listed()).toEqual([half.id]);
    expect(await stack.redis.sismember(layout.workspaces, half.id)).toBe(1);
    // The refused create left no record of its own behind.
    expect((await v1(stack, "GET", `/v1/workspaces/${half.id}`, { token })).status).toBe(200);
  });
});

describe("the workspace directory on upgrade", () => {
  it("is built once by whichever process starts first, in pages, and then skipped", async () => {
    // A deployment of its own (a prefix), so the shared test Redis's other workspaces are not in it.
    const prefix = `up${randomBytes(4).toString("hex")}:`;
    const own = redisLayout(prefix);
    const keystore = new Keystore({ redis: stack.redis, clock: stack.clock, prefix });
    const made = [];
    for (let i = 0; i < 1_203; i++)
      made.push(await keystore.createWorkspace({ name: `Old ${i}`, plan: "free" }));
    // What a deployment from before 1.5 has: the workspace set, no directory lists.
    for (const w of made) await reindex(stack.redis, own, w, null);
    expect((await keystore.pageWorkspaceIds({}, 1000, null)).ids).toEqual([]);

    // Another process holds the lock: this one leaves it to it.
    await stack.redis.set(own.directoryLock, "someone", "PX", 60_000);
    expect(await keystore.upgradeDirectory()).toEqual({ skipped: "another process" });
    await stack.redis.del(own.directoryLock);

    // Two starting at once: one reindexes, the other skips.
    const twice = await Promise.all([keystore.upgradeDirectory(), keystore.upgradeDirectory()]);
    expect(twice).toContainEqual({ reindexed: 1_203 });
    expect(twice).toContainEqual({ skipped: "another process" });
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await keystore.pageWorkspaceIds({}, 1000, cursor);
      ids.push(...page.ids);
      cursor = page.next;
    } while (cursor);
    expect(ids.sort()).toEqual(made.map((w) => w.id).sort());
    expect(await keystore.upgradeDirectory()).toEqual({ skipped: "done" });
    expect(await stack.redis.exists(own.directoryLock)).toBe(0);

    let scan = "0";
    do {
      const [next, keys] = await stack.redis.scan(scan, "MATCH", `${prefix}*`, "COUNT", 1000);
      scan = next;
      if (keys.length > 0) await stack.redis.del(...keys);
    } while (scan !== "0");
  });
});
