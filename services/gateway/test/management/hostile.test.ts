import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { MANAGEMENT_OPERATIONS, ManagementMessage } from "@sift/contracts";
import { systemClock } from "@sift/runtime";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { ReportStore } from "@sift/feedback";
import { WebhookStore } from "@sift/management";
import { DEFAULT_LOG_SETTINGS } from "@sift/verdicts";
import { operatorToken, runLabel, v1 } from "./helpers.ts";

/**
 * One table of hostile calls run against every path of the management API (STYLE.md: one shared
 * table of auth and tenancy cases): each gets a clear error in DESIGN's shape, and afterwards
 * the workspace they aimed at is exactly as it was.
 */
let stack: Stack;
let nats: TestServer;
let operator: string;
let victim: {
  workspace: string;
  config: string;
  secretKey: string;
  /** A webhook of the victim's workspace, and a token scoped to it. */
  webhook: string;
  token: string;
};
let keys: {
  classify: string;
  expired: string;
  revoked: string;
  otherWorkspace: string;
  /** Read-only: one for every workspace, one for the victim's own. */
  readOnlyOperator: string;
  readOnlyVictim: string;
};
let otherId: string;
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
  const workspace = ws.body["id"] as string;
  // Made on the store: a webhook's public target would be resolved by /v1, and tests have no DNS.
  const hooks = new WebhookStore({ redis: stack.redis, clock: systemClock, signingKey: randomBytes(32) });
  victim = {
    workspace,
    config: cfg.body["id"] as string,
    secretKey: cfg.body["secretKey"] as string,
    webhook: (
      await hooks.create({
        url: "https://hooks.example/victim",
        events: ["secret.rotated"],
        workspaceId: workspace,
      })
    ).record.id,
    token: (await stack.tokens.create({ name: "victim's", scope: "workspace", workspaceId: workspace }))
      .record.tokenId,
  };
  // What the list and verdict-log paths would change: one entry, one verdict, one report's version.
  await new ReportStore({ redis: stack.redis }).updateList(workspace, "add", KEPT_ENTRY);
  await stack.verdicts.append(
    {
      time: Date.now(),
      workspaceId: workspace,
      configId: victim.config,
      operation: "verify",
      ok: true,
      reasons: [],
      listHits: [],
    },
    DEFAULT_LOG_SETTINGS,
  );
  const other = await stack.keystore.createWorkspace({ name: "Other", plan: "free" });
  otherId = other.id;
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
    readOnlyOperator: await operatorToken(stack, { readOnly: true }),
    readOnlyVictim: (
      await stack.tokens.create({ name: "ro", scope: "workspace", workspaceId: workspace, readOnly: true })
    ).token,
  };
  await new Promise((r) => setTimeout(r, 60));
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

/** The victim's one list entry: a remove through any hostile call would take it. */
const KEPT_ENTRY = { kind: "block", type: "domain", value: "kept.example" } as const;

/** Each resource's id of the victim's, by the path's first segment. */
const victimId = (path: string): string => {
  const resource = path.split("/")[2];
  if (resource === "configurations") return victim.config;
  if (resource === "webhooks") return victim.webhook;
  if (resource === "tokens") return victim.token;
  return victim.workspace;
};

/**
 * A body each write would accept from a caller allowed it, so that what refuses a hostile call
 * is the check under test and nothing else (a webhook's target needs no DNS: it is refused
 * after the tenancy and read-only checks, which come first).
 */
const VALID_BODIES: Record<string, unknown> = {
  "POST /v1/workspaces": { name: `hostile-${label}`, plan: "free" },
  "PATCH /v1/workspaces/{id}": { name: "renamed" },
  "POST /v1/workspaces/{id}/configurations": { kind: "classify" },
  "PATCH /v1/configurations/{id}": { name: "renamed" },
  "POST /v1/tokens": { name: "minted", scope: "operator" },
  "POST /v1/webhooks": { url: "https://hooks.example/x", events: ["secret.rotated"] },
  "POST /v1/model/promote": { version: "none" },
  "POST /v1/workspaces/{id}/lists": { kind: "block", type: "domain", value: "hostile.example" },
  "POST /v1/workspaces/{id}/lists/remove": KEPT_ENTRY,
  "POST /v1/workspaces/{id}/lists/import": { entries: [{ kind: "allow", type: "phrase", value: "hostile" }] },
};

/** Every operation, its parameters filled with the victim's ids. */
const targets = Object.entries(MANAGEMENT_OPERATIONS).map(([name, op]) => ({
  name,
  method: op.method,
  operatorOnly: "operatorOnly" in op,
  path: () => op.path.replace("{id}", victimId(op.path)),
  body: () => (op.method === "GET" ? undefined : (VALID_BODIES[name] ?? {})),
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
    const withIds = targets.filter((t) => t.path().includes(victimId(t.path())));
    // Workspaces, configurations, usage, webhooks and their deliveries, tokens.
    expect(withIds.length).toBeGreaterThanOrEqual(14);
    for (const { method, path, operatorOnly, body } of withIds) {
      const res = await v1(stack, method, path(), { token: keys.otherWorkspace, body: body() });
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

  it.each([
    ["a kind that is not block or allow", { kind: "deny", type: "domain", value: "a.example" }, "kind"],
    ["no type", { kind: "block", value: "a.example" }, "type"],
    ["a value that is no domain", { kind: "block", type: "domain", value: "not a domain" }, "value"],
    ["a value that is no e-mail", { kind: "block", type: "email", value: "nobody" }, "value"],
    ["an empty value", { kind: "block", type: "phrase", value: "" }, "value"],
    ["a value over 2,000 characters", { kind: "block", type: "phrase", value: "x".repeat(2001) }, "value"],
    ["an unknown field", { kind: "block", type: "domain", value: "a.example", note: "x" }, ""],
    ["a JSON array", [KEPT_ENTRY], ""],
  ])(
    "refuses a list entry with %s with 400 naming the field, adding and removing nothing",
    async (_n, body, field) => {
      for (const path of ["lists", "lists/remove"]) {
        const res = await v1(stack, "POST", `/v1/workspaces/${victim.workspace}/${path}`, {
          token: operator,
          body,
        });
        expect(res.status, path).toBe(400);
        expect(res.body).toMatchObject({ ok: false, code: "invalid" });
        expect(res.body["message"]).toEqual(expect.stringContaining(field));
      }
    },
  );

  it.each([
    ["no entries", { entries: [] }, "entries"],
    ["entries that is not a list", { entries: "block,domain,a.example" }, "entries"],
    [
      "one value that is not valid among good ones",
      {
        entries: [
          { kind: "block", type: "domain", value: "good.example" },
          { kind: "block", type: "email", value: "bad" },
        ],
      },
      "1.value",
    ],
  ])("refuses an import with %s with 400, importing none of it", async (_n, body, field) => {
    const res = await v1(stack, "POST", `/v1/workspaces/${victim.workspace}/lists/import`, {
      token: operator,
      body,
    });
    expect(res.status).toBe(400);
    expect(res.body["code"]).toBe("invalid");
    expect(res.body["message"]).toEqual(expect.stringContaining(field));
  });

  it.each([["limit=0"], ["kind=deny"], ["type=domain"], ["cursor=%00"], ["unknown=1"]])(
    "refuses the lists query %s with 400 invalid",
    async (query) => {
      const res = await v1(stack, "GET", `/v1/workspaces/${victim.workspace}/lists?${query}`, {
        token: operator,
      });
      expect(res.status).toBe(400);
      expect(res.body["code"]).toBe("invalid");
    },
  );

  it("answers an unknown path and a wrong method with 404 not_found", async () => {
    expect((await v1(stack, "GET", "/v1/nothing", { token: operator })).body["code"]).toBe("not_found");
    expect(
      (await v1(stack, "PUT", `/v1/workspaces/${victim.workspace}`, { token: operator, body: {} })).status,
    ).toBe(404);
  });

  it("answers a workspace token's batch naming another workspace with 404 inside, and runs none of it", async () => {
    const res = await v1(stack, "POST", "/v1/batch", {
      token: keys.otherWorkspace,
      body: {
        operations: [
          { method: "PATCH", path: `/v1/workspaces/${victim.workspace}`, body: { name: "taken" } },
          { method: "POST", path: `/v1/configurations/${victim.config}/rotate-secret`, body: {} },
          { method: "DELETE", path: `/v1/webhooks/${victim.webhook}` },
          { method: "POST", path: "/v1/webhooks", body: { ...webhookBody, workspaceId: victim.workspace } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect((res.body["results"] as Array<{ status: number }>).map((r) => r.status)).toEqual([
      404, 404, 404, 404,
    ]);
  });

  it("lists to a workspace token only its own workspace's workspaces, usage, webhooks and audit entries", async () => {
    const token = keys.otherWorkspace;
    // An entry of its own to read: its name changed by itself.
    expect(
      (await v1(stack, "PATCH", `/v1/workspaces/${otherId}`, { token, body: { name: "Other" } })).status,
    ).toBe(200);
    const ids = async (path: string, field: string) => {
      const res = await v1(stack, "GET", path, { token });
      expect(res.status, path).toBe(200);
      return (res.body["data"] as Array<Record<string, unknown>>).map((row) => row[field]);
    };
    expect(await ids("/v1/workspaces?limit=1000", "id")).toEqual([otherId]);
    expect(await ids("/v1/usage?limit=1000", "workspaceId")).toEqual([otherId]);
    expect(await ids("/v1/webhooks?limit=1000", "workspaceId")).toEqual([]);
    // The victim's own token reads its site's webhook, on the first page whatever the deployment holds.
    const victims = await v1(stack, "GET", "/v1/webhooks?limit=1", { token: keys.readOnlyVictim });
    expect((victims.body["data"] as Array<{ id: string }>).map((w) => w.id)).toEqual([victim.webhook]);
    expect(victims.body["nextCursor"]).toBeNull();
    const audited = await ids("/v1/audit?limit=1000", "workspaceId");
    expect(audited.length).toBeGreaterThan(0);
    expect(new Set(audited)).toEqual(new Set([otherId]));
    // Asking for the victim's trail by name is the same 404 as a workspace that does not exist.
    expect((await v1(stack, "GET", `/v1/audit?workspace=${victim.workspace}`, { token })).status).toBe(404);
    // The operator reads the victim's trail, which holds its creation: the list above did hide it.
    const operatorView = await v1(stack, "GET", `/v1/audit?workspace=${victim.workspace}&limit=1000`, {
      token: operator,
    });
    expect((operatorView.body["data"] as Array<{ action: string }>).map((e) => e.action)).toContain(
      "workspace.create",
    );
  });

  it("left the victim workspace, its configuration and its secret as they were, and created nothing", async () => {
    const ws = await v1(stack, "GET", `/v1/workspaces/${victim.workspace}`, { token: operator });
    expect(ws.body).toMatchObject({ name: "Victim", plan: "free", classify: true, labels: { run: label } });
    expect(await stack.keystore.configIdsOf(victim.workspace)).toEqual([victim.config]);
    expect((await stack.keystore.resolve(victim.secretKey))?.configId).toBe(victim.config);
    const created = await v1(stack, "GET", `/v1/workspaces?q=hostile-${label}`, { token: operator });
    expect(created.body["data"]).toEqual([]);
    expect((await v1(stack, "GET", `/v1/webhooks/${victim.webhook}`, { token: operator })).status).toBe(200);
    const token = await v1(stack, "GET", `/v1/tokens/${victim.token}`, { token: operator });
    expect(token.body["revokedAt"]).toBeNull();
    const lists = await v1(stack, "GET", `/v1/workspaces/${victim.workspace}/lists`, { token: operator });
    expect(
      (lists.body["data"] as Array<Record<string, unknown>>).map(({ kind, type, value }) => ({
        kind,
        type,
        value,
      })),
    ).toEqual([KEPT_ENTRY]);
    expect((await stack.verdicts.list(victim.workspace)).verdicts).toHaveLength(1);
  });
});

const webhookBody = VALID_BODIES["POST /v1/webhooks"] as object;

describe.each(targets.filter((t) => t.method !== "GET"))("$name with a read-only token", (target) => {
  it.each([
    { name: "an operator's", token: () => keys.readOnlyOperator },
    { name: "the victim workspace's own", token: () => keys.readOnlyVictim },
  ])("refuses $name with 403 forbidden and changes nothing", async ({ token }) => {
    const before = await stack.audit.page({ workspaceId: victim.workspace, limit: 1000 });
    const res = await v1(stack, target.method, target.path(), { token: token(), body: target.body() });
    if (target.name === "POST /v1/batch") {
      // A batch is no write itself: each of its operations is refused as if sent alone.
      const inner = await v1(stack, "POST", "/v1/batch", {
        token: token(),
        body: {
          operations: [{ method: "PATCH", path: `/v1/workspaces/${victim.workspace}`, body: { name: "ro" } }],
        },
      });
      expect(inner.body["results"]).toEqual([
        { status: 403, body: { ok: false, code: "forbidden", message: ManagementMessage.readOnly } },
      ]);
    } else {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ ok: false, code: "forbidden", message: ManagementMessage.readOnly });
    }
    const after = await stack.audit.page({ workspaceId: victim.workspace, limit: 1000 });
    expect(after.data.length).toBe(before.data.length);
  });
});

describe("the edge's limits on /v1, through the gateway as for /classify", () => {
  // A stack of its own whose management service allows two calls, then one a second: /v1 is
  // forwarded to it by the gateway, which reads the body under the edge's limit first.
  let limited: Stack;
  beforeAll(async () => {
    limited = await startStack({
      redisUrl: inject("redisUrl"),
      natsUrl: nats.url,
      management: { tokenRate: { rate: 1, burst: 2 } },
    });
  }, 60_000);
  afterAll(async () => limited?.stop());

  it("refuses a body over 1 MB at the edge without spending the token's rate, then answers past the burst with 429 and a whole-second Retry-After", async () => {
    const { token } = await limited.tokens.create({ name: "limited", scope: "operator" });
    const big = JSON.stringify({ name: "x".repeat(1_100_000), plan: "free" });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await v1(limited, "POST", "/v1/workspaces", { token, body: big })).status);
    let last: Awaited<ReturnType<typeof v1>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await v1(limited, "GET", "/v1/workspaces?limit=1", { token });
      statuses.push(last.status);
    }
    // The three 413s never crossed the hop: the burst of two is whole for the GETs.
    expect(statuses).toEqual([413, 413, 413, 200, 200, 429]);
    expect(last?.body).toEqual({ ok: false, code: "rate_limited", message: ManagementMessage.rateLimited });
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("limits each token on its own: another token still gets through", async () => {
    const { token } = await limited.tokens.create({ name: "fresh", scope: "operator" });
    expect((await v1(limited, "GET", "/v1/workspaces?limit=1", { token })).status).toBe(200);
  });
});
