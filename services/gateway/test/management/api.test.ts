import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, ManagementMessage, VerifyMessage } from "@sift/contracts";
import { ReportStore } from "@sift/feedback";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { operatorToken, runLabel, v1, verifyAnswer } from "./helpers.ts";

/**
 * The management API on the real stack (DESIGN, "Operating many sites"): tokens, workspaces,
 * configurations, rotation, idempotency, batch and the audit trail, over HTTP through the
 * gateway, on a real Redis.
 */
let stack: Stack;
let nats: TestServer;
let operator: string;
const label = runLabel();

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  operator = await operatorToken(stack);
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

const site = async (name: string, extra: object = {}) => {
  const res = await v1(stack, "POST", "/v1/workspaces", {
    token: operator,
    body: { name, plan: "free", labels: { run: label }, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; externalId: string | null };
};

describe("workspaces", () => {
  it("creates, reads, changes and deletes a workspace with an external id and labels", async () => {
    const created = await v1(stack, "POST", "/v1/workspaces", {
      token: operator,
      body: {
        name: "Shop",
        plan: "paid",
        allowance: 5000,
        externalId: `ext-${label}`,
        labels: { run: label, tier: "gold" },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Shop",
      plan: "paid",
      allowance: 5000,
      classify: true,
      externalId: `ext-${label}`,
      labels: { run: label, tier: "gold" },
    });
    const id = created.body["id"] as string;
    expect((await v1(stack, "GET", `/v1/workspaces/${id}`, { token: operator })).body["name"]).toBe("Shop");
    const patched = await v1(stack, "PATCH", `/v1/workspaces/${id}`, {
      token: operator,
      body: { name: "Shop 2", classify: false, labels: { run: label } },
    });
    expect(patched.body).toMatchObject({ name: "Shop 2", classify: false, labels: { run: label } });
    const byExternal = await v1(stack, "GET", `/v1/workspaces?externalId=ext-${label}`, { token: operator });
    expect((byExternal.body["data"] as Array<{ id: string }>).map((w) => w.id)).toEqual([id]);
    expect((await v1(stack, "DELETE", `/v1/workspaces/${id}`, { token: operator })).status).toBe(200);
    expect((await v1(stack, "GET", `/v1/workspaces/${id}`, { token: operator })).status).toBe(404);
    // Deleted, its external id is free again.
    const again = await site("Shop again", { externalId: `ext-${label}` });
    expect(again.externalId).toBe(`ext-${label}`);
  });

  it("changes strictness, sharing, the network and languages with PATCH, and every view answers them", async () => {
    const { id } = await site("Settings");
    const fresh = await v1(stack, "GET", `/v1/workspaces/${id}`, { token: operator });
    expect(fresh.body).toMatchObject({
      strictness: "balanced",
      shareReports: false,
      network: true,
      languages: [],
    });
    const patched = await v1(stack, "PATCH", `/v1/workspaces/${id}`, {
      token: operator,
      body: { strictness: "strict", shareReports: true, network: false, languages: ["es", "en"] },
    });
    expect(patched.status).toBe(200);
    const settings = { strictness: "strict", shareReports: true, network: false, languages: ["es", "en"] };
    expect(patched.body).toMatchObject(settings);
    expect((await v1(stack, "GET", `/v1/workspaces/${id}`, { token: operator })).body).toMatchObject(
      settings,
    );
    const listed = await v1(stack, "GET", `/v1/workspaces?label=run:${label}&limit=1000`, {
      token: operator,
    });
    expect((listed.body["data"] as Array<{ id: string }>).find((w) => w.id === id)).toMatchObject(settings);
    // Where the workers read them: strictness and sharing beside the learned state, the network in the key record.
    expect(await new ReportStore({ redis: stack.redis }).settings(id)).toEqual({
      strictness: "strict",
      shareReports: true,
      languages: ["es", "en"],
    });
    expect((await stack.keystore.getWorkspace(id))?.network).toBe(false);
  });

  it.each([
    [{ strictness: "paranoid" }, /^strictness: /],
    [{ shareReports: "yes" }, /^shareReports: /],
    [{ network: 1 }, /^network: /],
    [{ languages: "es" }, /^languages: /],
    [{ languages: ["xx"] }, /^languages\.0: "xx" is not an ISO 639-1 language code/],
    [{ languages: ["ES"] }, /^languages\.0: "ES" is not an ISO 639-1 language code/],
    [{ languages: ["es", "es"] }, /^languages: each language at most once/],
    [{ languages: Array.from({ length: 21 }, () => "es") }, /^languages: at most 20 languages/],
    [{ strictness: "strict", languages: ["zz"] }, /^languages\.0: /],
  ])("refuses the settings %j with a 400 naming the field, changing nothing", async (body, message) => {
    const { id } = await site("Bad settings");
    const before = (await v1(stack, "GET", `/v1/workspaces/${id}`, { token: operator })).body;
    const res = await v1(stack, "PATCH", `/v1/workspaces/${id}`, { token: operator, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, code: "invalid" });
    expect(res.body["message"]).toMatch(message);
    expect((await v1(stack, "GET", `/v1/workspaces/${id}`, { token: operator })).body).toEqual(before);
  });

  it("answers a second create with a taken externalId with a 409 naming the existing id", async () => {
    const first = await site("First", { externalId: `dup-${label}` });
    const second = await v1(stack, "POST", "/v1/workspaces", {
      token: operator,
      body: { name: "Second", plan: "free", externalId: `dup-${label}` },
    });
    expect(second.status).toBe(409);
    expect(second.body).toEqual({
      ok: false,
      code: "conflict",
      message: ManagementMessage.externalIdTaken,
      id: first.id,
    });
  });

  it("pages a label's workspaces in a stable order, each once, with a null cursor on the last page", async () => {
    const own = runLabel();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await site(`Paged ${i}`, { labels: { run: own } })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const path = `/v1/workspaces?label=run:${own}&limit=3${cursor ? `&cursor=${cursor}` : ""}`;
      const res = await v1(stack, "GET", path, { token: operator });
      expect(res.status).toBe(200);
      seen.push(...(res.body["data"] as Array<{ id: string }>).map((w) => w.id));
      cursor = res.body["nextCursor"] as string | null;
    } while (cursor);
    expect(seen).toEqual(ids);
  });

  it("finds workspaces by the start of their name", async () => {
    const name = `Zebra ${label}`;
    const { id } = await site(name);
    const res = await v1(stack, "GET", `/v1/workspaces?q=${encodeURIComponent(name.toLowerCase())}`, {
      token: operator,
    });
    expect((res.body["data"] as Array<{ id: string }>).map((w) => w.id)).toEqual([id]);
  });
});

describe("configurations and their secrets", () => {
  it("creates a challenge configuration whose secret verify accepts, and deleting it stops the secret", async () => {
    const { id } = await site("Keys");
    const created = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
      token: operator,
      body: {
        kind: "challenge",
        name: "Contact",
        hostnames: ["shop.example", "*.shop.example"],
        difficulty: 6,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: "challenge",
      hostnames: ["shop.example", "*.shop.example"],
      difficulty: 6,
    });
    const secret = created.body["secretKey"] as string;
    expect(created.body["siteKey"]).toMatch(/^pk_/);
    expect(await verifyAnswer(stack, secret)).toBe(VerifyMessage.invalidSolutionLength);
    const cfg = created.body["id"] as string;
    const read = await v1(stack, "GET", `/v1/configurations/${cfg}`, { token: operator });
    expect(read.body["secretKey"]).toBeUndefined();
    const list = await v1(stack, "GET", `/v1/workspaces/${id}/configurations`, { token: operator });
    expect((list.body["data"] as Array<{ id: string }>).map((c) => c.id)).toEqual([cfg]);
    expect((await v1(stack, "DELETE", `/v1/configurations/${cfg}`, { token: operator })).status).toBe(200);
    expect(await verifyAnswer(stack, secret)).toBe(VerifyMessage.invalidKey);
  });

  it("refuses challenge settings on a classify configuration, naming the field", async () => {
    const { id } = await site("Classify only");
    const res = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
      token: operator,
      body: { kind: "classify", hostnames: ["a.example"] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringContaining("hostnames"),
    });
  });

  it("rotates a secret at once by default, and with a grace keeps the old one working until then", async () => {
    const { id } = await site("Rotation");
    const created = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
      token: operator,
      body: { kind: "challenge" },
    });
    const cfg = created.body["id"] as string;
    const first = created.body["secretKey"] as string;
    const now = await v1(stack, "POST", `/v1/configurations/${cfg}/rotate-secret`, { token: operator });
    expect(now.status).toBe(200);
    expect(await verifyAnswer(stack, first)).toBe(VerifyMessage.invalidKey);
    const second = now.body["secretKey"] as string;
    expect(await verifyAnswer(stack, second)).toBe(VerifyMessage.invalidSolutionLength);

    const graced = await v1(stack, "POST", `/v1/configurations/${cfg}/rotate-secret`, {
      token: operator,
      body: { graceSeconds: 2 },
    });
    const until = Date.parse(graced.body["previousValidUntil"] as string);
    expect(until).toBeGreaterThan(Date.now() + 1000);
    expect(await verifyAnswer(stack, second)).toBe(VerifyMessage.invalidSolutionLength);
    expect(await verifyAnswer(stack, graced.body["secretKey"] as string)).toBe(
      VerifyMessage.invalidSolutionLength,
    );
    await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 100));
    expect(await verifyAnswer(stack, second)).toBe(VerifyMessage.invalidKey);
  });

  it("refuses a grace outside 0-86,400 seconds and changes nothing", async () => {
    const { id } = await site("Bad grace");
    const created = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
      token: operator,
      body: { kind: "classify" },
    });
    const res = await v1(stack, "POST", `/v1/configurations/${created.body["id"]}/rotate-secret`, {
      token: operator,
      body: { graceSeconds: 86_401 },
    });
    expect(res.status).toBe(400);
    expect(res.body["code"]).toBe("invalid");
    const classify = await fetch(`${stack.gatewayUrl}/classify`, {
      method: "POST",
      headers: { authorization: `Bearer ${created.body["secretKey"]}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "hello", model: "spam-standard" }),
    });
    // Past the key (no model worker runs here): the secret still works.
    expect(classify.status).toBe(503);
  });
});

describe("tokens are never interchangeable with classify or challenge secrets", () => {
  it("answers a classify or challenge secret on /v1 with 401 unauthorized", async () => {
    const { id } = await site("Secrets");
    for (const kind of ["classify", "challenge"]) {
      const created = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
        token: operator,
        body: { kind },
      });
      const res = await v1(stack, "GET", "/v1/workspaces", { token: created.body["secretKey"] as string });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ ok: false, code: "unauthorized", message: ManagementMessage.invalidToken });
    }
  });

  it("refuses a management token on /classify and /verify as an unknown key", async () => {
    const classify = await fetch(`${stack.gatewayUrl}/classify`, {
      method: "POST",
      headers: { authorization: `Bearer ${operator}`, "content-type": "application/json" },
      body: JSON.stringify({ content: "hello", model: "spam-standard" }),
    });
    expect(classify.status).toBe(401);
    expect(await classify.json()).toMatchObject({ message: ClassifyMessage.invalidKey });
    expect(await verifyAnswer(stack, operator)).toBe(VerifyMessage.invalidKey);
  });
});

describe("scoped, read-only, expired and revoked tokens", () => {
  it("shows a workspace token its workspace only: another's is a 404, an operator's call a 403", async () => {
    const mine = await site("Mine");
    const theirs = await site("Theirs");
    const { token } = await stack.tokens.create({ name: "site", scope: "workspace", workspaceId: mine.id });
    expect((await v1(stack, "GET", `/v1/workspaces/${mine.id}`, { token })).status).toBe(200);
    expect((await v1(stack, "GET", `/v1/workspaces/${theirs.id}`, { token })).status).toBe(404);
    const list = await v1(stack, "GET", "/v1/workspaces", { token });
    expect((list.body["data"] as Array<{ id: string }>).map((w) => w.id)).toEqual([mine.id]);
    const create = await v1(stack, "POST", "/v1/workspaces", { token, body: { name: "x", plan: "free" } });
    expect(create.status).toBe(403);
    const other = await v1(stack, "POST", `/v1/workspaces/${theirs.id}/configurations`, {
      token,
      body: { kind: "classify" },
    });
    expect(other.status).toBe(404);
    expect(await stack.keystore.configIdsOf(theirs.id)).toEqual([]);
    const limits = await v1(stack, "PATCH", `/v1/workspaces/${mine.id}`, { token, body: { plan: "paid" } });
    expect(limits.status).toBe(403);
    expect((await stack.keystore.getWorkspace(mine.id))?.plan).toBe("free");
    // Its own traffic's settings are its own; mixed with a limit, nothing changes.
    const mixed = await v1(stack, "PATCH", `/v1/workspaces/${mine.id}`, {
      token,
      body: { strictness: "strict", allowance: 9 },
    });
    expect(mixed.status).toBe(403);
    const own = await v1(stack, "PATCH", `/v1/workspaces/${mine.id}`, {
      token,
      body: { strictness: "strict", languages: ["de"] },
    });
    expect([own.status, own.body["strictness"], own.body["languages"]]).toEqual([200, "strict", ["de"]]);
    const elsewhere = await v1(stack, "PATCH", `/v1/workspaces/${theirs.id}`, {
      token,
      body: { strictness: "strict" },
    });
    expect(elsewhere.status).toBe(404);
    expect((await new ReportStore({ redis: stack.redis }).settings(theirs.id)).strictness).toBe("balanced");
  });

  it("lets a read-only token read and refuses its writes", async () => {
    const readOnly = await operatorToken(stack, { readOnly: true });
    expect((await v1(stack, "GET", "/v1/workspaces?limit=1", { token: readOnly })).status).toBe(200);
    const res = await v1(stack, "POST", "/v1/workspaces", {
      token: readOnly,
      body: { name: "x", plan: "free" },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ ok: false, code: "forbidden", message: ManagementMessage.readOnly });
  });

  it("refuses a revoked and an expired token, and keeps each token's last use", async () => {
    const made = await v1(stack, "POST", "/v1/tokens", {
      token: operator,
      body: { name: "short", scope: "operator", expiresInSeconds: 1 },
    });
    expect(made.status).toBe(201);
    const short = made.body["token"] as string;
    expect(short).toMatch(/^st_/);
    expect((await v1(stack, "GET", "/v1/workspaces?limit=1", { token: short })).status).toBe(200);
    const listed = await v1(stack, "GET", `/v1/tokens/${made.body["tokenId"]}`, { token: operator });
    expect(listed.body["lastUsedAt"]).not.toBeNull();
    expect(JSON.stringify(listed.body)).not.toContain(short);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await v1(stack, "GET", "/v1/workspaces?limit=1", { token: short })).status).toBe(401);

    const gone = await stack.tokens.create({ name: "revoked", scope: "operator" });
    expect((await v1(stack, "GET", "/v1/workspaces?limit=1", { token: gone.token })).status).toBe(200);
    const revoked = await v1(stack, "DELETE", `/v1/tokens/${gone.record.tokenId}`, { token: operator });
    expect(revoked.body["revokedAt"]).not.toBeNull();
    const res = await v1(stack, "GET", "/v1/workspaces?limit=1", { token: gone.token });
    expect(res.status).toBe(401);
    expect(res.body["code"]).toBe("unauthorized");
  });
});

describe("Idempotency-Key", () => {
  it("answers a resend with the first answer, secret included, and runs it once", async () => {
    const { id } = await site("Idempotent");
    const send = () =>
      v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
        token: operator,
        body: { kind: "classify" },
        headers: { "idempotency-key": `cfg-${label}` },
      });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(await stack.keystore.configIdsOf(id)).toHaveLength(1);
  });

  it("refuses the same key with another body with 422 idempotency_mismatch", async () => {
    const key = `ws-${label}`;
    await v1(stack, "POST", "/v1/workspaces", {
      token: operator,
      body: { name: "A", plan: "free" },
      headers: { "idempotency-key": key },
    });
    const other = await v1(stack, "POST", "/v1/workspaces", {
      token: operator,
      body: { name: "B", plan: "free" },
      headers: { "idempotency-key": key },
    });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({
      ok: false,
      code: "idempotency_mismatch",
      message: ManagementMessage.idempotencyMismatch,
    });
  });

  it("runs five concurrent sends of one key once", async () => {
    const own = runLabel();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        v1(stack, "POST", "/v1/workspaces", {
          token: operator,
          body: { name: "Concurrent", plan: "free", labels: { run: own } },
          headers: { "idempotency-key": `conc-${own}` },
        }),
      ),
    );
    expect(new Set(answers.map((a) => a.body["id"])).size).toBe(1);
    expect(answers.every((a) => a.status === 201)).toBe(true);
    const listed = await v1(stack, "GET", `/v1/workspaces?label=run:${own}`, { token: operator });
    expect(listed.body["data"]).toHaveLength(1);
  });
});

describe("/v1/batch", () => {
  it("runs each operation as if alone, in order, one failing without stopping the others", async () => {
    const own = runLabel();
    const res = await v1(stack, "POST", "/v1/batch", {
      token: operator,
      body: {
        operations: [
          {
            method: "POST",
            path: "/v1/workspaces",
            body: { name: "B1", plan: "free", labels: { run: own } },
          },
          { method: "POST", path: "/v1/workspaces", body: { name: "", plan: "free" } },
          { method: "GET", path: "/v1/workspaces/ws_nope" },
          {
            method: "POST",
            path: "/v1/workspaces",
            body: { name: "B2", plan: "paid", labels: { run: own } },
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    const results = res.body["results"] as Array<{ status: number; body: Record<string, unknown> }>;
    expect(results.map((r) => r.status)).toEqual([201, 400, 404, 201]);
    expect(results[3]?.body["plan"]).toBe("paid");
  });

  it("refuses more than 1,000 operations and runs none", async () => {
    const own = runLabel();
    const operations = Array.from({ length: 1001 }, () => ({
      method: "POST",
      path: "/v1/workspaces",
      body: { name: "Too many", plan: "free", labels: { run: own } },
    }));
    const res = await v1(stack, "POST", "/v1/batch", { token: operator, body: { operations } });
    expect(res.status).toBe(400);
    expect(res.body["code"]).toBe("invalid");
    const listed = await v1(stack, "GET", `/v1/workspaces?label=run:${own}`, { token: operator });
    expect(listed.body["data"]).toEqual([]);
  });
});

describe("the audit trail", () => {
  it("records each change with its token as actor, never a secret", async () => {
    const { id } = await site("Audited");
    const created = await v1(stack, "POST", `/v1/workspaces/${id}/configurations`, {
      token: operator,
      body: { kind: "classify" },
    });
    await v1(stack, "POST", `/v1/configurations/${created.body["id"]}/rotate-secret`, { token: operator });
    const res = await v1(stack, "GET", `/v1/audit?workspace=${id}`, { token: operator });
    const entries = res.body["data"] as Array<{ action: string; actor: { type: string; id: string } }>;
    expect(entries.map((e) => e.action)).toEqual([
      "workspace.create",
      "configuration.create",
      "configuration.rotate",
    ]);
    const { ok: authenticated, ...rest } = await stack.tokens.authenticate(operator);
    expect(authenticated).toBe(true);
    const tokenId = (rest as { token: { tokenId: string } }).token.tokenId;
    expect(entries.every((e) => e.actor.type === "token" && e.actor.id === tokenId)).toBe(true);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain("sk_");
    expect(text).not.toContain(created.body["secretKey"] as string);
  });
});
