import express from "express";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { MANAGEMENT_OPERATIONS, ManagementMessage } from "@sift/contracts";
import { managementParts } from "@sift/management-service/wiring";
import { managementApi } from "@sift/management";
import { systemClock, silentLogger, listen, closeServer, createHttpServer } from "@sift/runtime";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import type { Server } from "node:http";
import { operatorToken, runLabel, v1 } from "./helpers.ts";

/**
 * One table of hostile calls run against every path of the management API (STYLE.md: one shared
 * table of auth and tenancy cases): each gets a clear error in DESIGN's shape, and afterwards
 * the workspace they aimed at is exactly as it was.
 */
let stack: Stack;
let nats: TestServer;
let operator: string;
let victim: { workspace: string; config: string; secretKey: string };
let keys: { classify: string; expired: string; revoked: string; otherWorkspace: string };
const label = runLabel();

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  operator = await operatorToken(stack);
  const ws = await v1(stack, "POST", "/v1/workspaces", {
    token: operator,
    body: { name: "Victim", plan: "free", labels: { run: label } },
  });
  const cfg = await v1(stack, "POST", `/v1/workspaces/${ws.body["id"]}/configurations`, {
    token: operator,
    body: { kind: "classify" },
  });
  victim = {
    workspace: ws.body["id"] as string,
    config: cfg.body["id"] as string,
    secretKey: cfg.body["secretKey"] as string,
  };
  const other = await stack.keystore.createWorkspace({ name: "Other", plan: "free" });
  const expired = await stack.tokens.create({
    name: "expired",
    scope: "operator",
    expiresAt: Date.now() + 50,
  });
  const revoked = await stack.tokens.create({ name: "revoked", scope: "operator" });
  await stack.tokens.revoke(revoked.record.tokenId);
  keys = {
    classify: victim.secretKey,
    expired: expired.token,
    revoked: revoked.token,
    otherWorkspace: (await stack.tokens.create({ name: "other", scope: "workspace", workspaceId: other.id }))
      .token,
  };
  await new Promise((r) => setTimeout(r, 60));
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

/** Every operation, its parameters filled with the victim's ids. */
const targets = Object.values(MANAGEMENT_OPERATIONS).map((op) => ({
  method: op.method,
  operatorOnly: "operatorOnly" in op,
  path: () =>
    op.path.replace(
      "{id}",
      op.path.startsWith("/v1/configurations")
        ? victim.config
        : op.path.startsWith("/v1/workspaces")
          ? victim.workspace
          : "wh_none",
    ),
}));

const unauthorised: Array<{ name: string; token: () => string | undefined }> = [
  { name: "no token", token: () => undefined },
  { name: "a classify secret", token: () => keys.classify },
  { name: "an expired token", token: () => keys.expired },
  { name: "a revoked token", token: () => keys.revoked },
  { name: "a token that is not st_", token: () => "st" },
];

describe.each(targets)("$method on every management path", ({ method, path }) => {
  it.each(unauthorised)("answers $name with 401 unauthorized", async ({ token }) => {
    const t = token();
    const res = await v1(stack, method, path(), {
      ...(t ? { token: t } : {}),
      body: method === "GET" ? undefined : {},
    });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ ok: false, code: "unauthorized" });
    expect(typeof res.body["message"]).toBe("string");
  });

  if (method !== "GET") {
    it("answers a body that is not JSON with 400 invalid", async () => {
      const res = await v1(stack, method, path(), { token: operator, body: "{not json" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ ok: false, code: "invalid", message: ManagementMessage.malformedJson });
    });

    it("answers a body over 1 MB with 413", async () => {
      const res = await v1(stack, method, path(), {
        token: operator,
        body: JSON.stringify({ name: "x".repeat(1_100_000) }),
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({ ok: false, code: "invalid", message: ManagementMessage.bodyTooLarge });
    });
  }
});

describe("ids of another workspace, and wrong types", () => {
  it("answers a workspace token naming another workspace's resources with 404 on every path with an id (403 on an operator's call)", async () => {
    for (const { method, path, operatorOnly } of targets.filter((t) => /ws_|cfg_/.test(t.path()))) {
      // A valid body, so what refuses the call is the tenancy and nothing else.
      const body =
        method === "POST" && path().endsWith("/configurations")
          ? { kind: "classify" }
          : method === "PATCH"
            ? { name: "n" }
            : {};
      const res = await v1(stack, method, path(), {
        token: keys.otherWorkspace,
        body: method === "GET" ? undefined : body,
      });
      expect(res.status, `${method} ${path()}`).toBe(operatorOnly ? 403 : 404);
      expect(res.body["ok"]).toBe(false);
    }
  });

  it.each([
    ["name a number", { name: 5, plan: "free" }, "name"],
    ["plan unknown", { name: `hostile-${label}`, plan: "gold" }, "plan"],
    ["allowance negative", { name: `hostile-${label}`, plan: "free", allowance: -1 }, "allowance"],
    ["an unknown field", { name: `hostile-${label}`, plan: "free", owner: "me" }, ""],
    ["labels a list", { name: `hostile-${label}`, plan: "free", labels: ["a"] }, "labels"],
    [
      "an externalId with spaces",
      { name: `hostile-${label}`, plan: "free", externalId: "a b" },
      "externalId",
    ],
    ["a JSON array", [1, 2], ""],
    ["a JSON string", "just text", ""],
  ])("refuses a workspace whose %s with 400 naming the field", async (_name, body, field) => {
    const res = await v1(stack, "POST", "/v1/workspaces", { token: operator, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, code: "invalid" });
    expect(res.body["message"]).toEqual(expect.stringContaining(field));
  });

  it.each([
    ["limit=0"],
    ["limit=1001"],
    ["limit=ten"],
    ["cursor=%00%01"],
    ["label=nocolon"],
    ["plan=gold"],
    ["limit=1&limit=2"],
    ["unknown=1"],
  ])("refuses the list query %s with 400 invalid", async (query) => {
    const res = await v1(stack, "GET", `/v1/workspaces?${query}`, { token: operator });
    expect(res.status).toBe(400);
    expect(res.body["code"]).toBe("invalid");
  });

  it("answers an unknown path and a wrong method with 404 not_found", async () => {
    expect((await v1(stack, "GET", "/v1/nothing", { token: operator })).body["code"]).toBe("not_found");
    expect(
      (await v1(stack, "PUT", `/v1/workspaces/${victim.workspace}`, { token: operator, body: {} })).status,
    ).toBe(404);
  });

  it("left the victim workspace, its configuration and its secret as they were, and created nothing", async () => {
    const ws = await v1(stack, "GET", `/v1/workspaces/${victim.workspace}`, { token: operator });
    expect(ws.body).toMatchObject({ name: "Victim", plan: "free", classify: true, labels: { run: label } });
    expect(await stack.keystore.configIdsOf(victim.workspace)).toEqual([victim.config]);
    expect((await stack.keystore.resolve(victim.secretKey))?.configId).toBe(victim.config);
    const created = await v1(stack, "GET", `/v1/workspaces?q=hostile-${label}`, { token: operator });
    expect(created.body["data"]).toEqual([]);
  });
});

describe("the per-token rate limit", () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // The same router on the same Redis with a tight rate: two calls, then one a second.
    const parts = managementParts({
      redis: stack.redis,
      clock: systemClock,
      logger: silentLogger(),
      internalSecret: stack.internalSecret,
      allowPrivateWebhooks: false,
      tokenRate: { rate: 1, burst: 2 },
    });
    server = createHttpServer(express().use("/v1", managementApi(parts)));
    url = `http://127.0.0.1:${await listen(server, 0, "127.0.0.1")}`;
  });
  afterAll(async () => closeServer(server));

  it("answers past the burst with 429 rate_limited and a Retry-After in whole seconds", async () => {
    const { token } = await stack.tokens.create({ name: "limited", scope: "operator" });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof v1>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await v1({ gatewayUrl: url }, "GET", "/v1/workspaces?limit=1", { token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last?.body).toEqual({ ok: false, code: "rate_limited", message: ManagementMessage.rateLimited });
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});
