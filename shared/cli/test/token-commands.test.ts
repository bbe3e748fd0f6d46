import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { AuditTrail, Keystore, NoticeStore, RedisUsageMeter, TokenStore } from "@sift/keystore";
import { ReportStore } from "@sift/feedback";
import { systemClock } from "@sift/runtime";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

/** `sift token …` and the CLI's audit entries (DESIGN, "management tokens", "audit"). */
let redis: Redis;
let tokens: TokenStore;
let trail: AuditTrail;
let cli: (...argv: string[]) => ReturnType<typeof runCli>;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  tokens = new TokenStore({ redis, clock: systemClock });
  trail = new AuditTrail({ redis, clock: systemClock });
  const deps = {
    keystore: new Keystore({ redis, clock: systemClock }),
    operations: cliOperations(redis),
    tokens,
    audit: { trail, actorId: "ann@ops-1" },
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
  return JSON.parse(result.stdout) as Record<string, unknown>;
};

describe("sift token", () => {
  it("creates an operator token shown once, lists it with no secret, and revokes it", async () => {
    const { tokenId, token } = (await ok("token", "create", "--name", "panel", "--scope", "operator")) as {
      tokenId: string;
      token: string;
    };
    expect(token).toMatch(/^st_[A-Za-z0-9_-]{43}$/);
    expect(tokenId).toMatch(/^tok_/);
    expect((await tokens.authenticate(token)).ok).toBe(true);
    // The secret is in Redis only as its SHA-256.
    expect(JSON.stringify(await redis.keys(`*${token}*`))).toBe("[]");
    let listed: Array<{ tokenId: string }> = [];
    let cursor: string | null = null;
    do {
      const page = (await ok(
        "token",
        "list",
        "--limit",
        "1000",
        ...(cursor ? ["--cursor", cursor] : []),
      )) as {
        data: Array<{ tokenId: string }>;
        nextCursor: string | null;
      };
      listed = listed.concat(page.data);
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed.some((t) => t.tokenId === tokenId)).toBe(true);
    expect(await ok("token", "revoke", "--token", tokenId)).toEqual({ tokenId, revoked: true });
    expect(await tokens.authenticate(token)).toEqual({ ok: false, reason: "revoked" });
  });

  it("makes a read-only workspace token that expires", async () => {
    const { workspaceId } = (await ok("workspace", "create", "--name", "Tok", "--plan", "free")) as {
      workspaceId: string;
    };
    const made = (await ok(
      "token",
      "create",
      "--name",
      "stats",
      "--scope",
      "workspace",
      "--workspace",
      workspaceId,
      "--read-only",
      "--expires-in",
      "90d",
    )) as { token: string };
    const check = await tokens.authenticate(made.token);
    expect(check.ok && check.token).toMatchObject({ scope: "workspace", workspaceId, readOnly: true });
    const expiresAt = check.ok ? check.token.expiresAt! : 0;
    expect(Math.abs(expiresAt - (Date.now() + 90 * 86_400_000))).toBeLessThan(60_000);
  });

  it.each([
    [["--name", "x", "--scope", "galaxy"], 2],
    [["--name", "x", "--scope", "workspace"], 2],
    [["--name", "x", "--scope", "operator", "--workspace", "ws_x"], 2],
    [["--name", "x", "--scope", "operator", "--expires-in", "forever"], 2],
    [["--name", "x", "--scope", "workspace", "--workspace", "ws_none"], 1],
  ])("refuses %j with a sentence and makes no token", async (flags, code) => {
    const result = await cli("token", "create", ...flags);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(/^sift token create: .+/);
    expect(result.stdout).toBe("");
  });

  it("records each change it makes in the audit trail under its actor, never a secret", async () => {
    const { workspaceId } = (await ok("workspace", "create", "--name", "Audited CLI", "--plan", "free")) as {
      workspaceId: string;
    };
    const created = (await ok("config", "create", "--workspace", workspaceId, "--kind", "challenge")) as {
      configId: string;
      secretKey: string;
    };
    await ok("config", "set", "--config", created.configId, "--hostnames", "a.example,*.b.example");
    await ok("usage", "show", "--workspace", workspaceId);
    const { data } = await trail.page({ workspaceId, limit: 10 });
    // The action names /v1 records for the same changes (one operation per change, issue 58).
    expect(data.map((e) => e.action)).toEqual([
      "workspace.create",
      "configuration.create",
      "configuration.update",
    ]);
    expect(data.every((e) => e.actor.type === "cli" && e.actor.id === "ann@ops-1")).toBe(true);
    expect(JSON.stringify(data)).not.toContain(created.secretKey);
  });

  it("sets a challenge configuration's hostnames, and refuses a bad one", async () => {
    const { workspaceId } = (await ok("workspace", "create", "--name", "Hosts", "--plan", "free")) as {
      workspaceId: string;
    };
    const { configId } = (await ok(
      "config",
      "create",
      "--workspace",
      workspaceId,
      "--kind",
      "challenge",
    )) as {
      configId: string;
    };
    await ok("config", "set", "--config", configId, "--hostnames", "Shop.Example, *.shop.example");
    const keystore = new Keystore({ redis, clock: systemClock });
    expect((await keystore.getConfig(configId))?.hostnames).toEqual(["shop.example", "*.shop.example"]);
    const bad = await cli("config", "set", "--config", configId, "--hostnames", "http://x/");
    expect(bad.code).toBe(2);
    expect((await keystore.getConfig(configId))?.hostnames).toEqual(["shop.example", "*.shop.example"]);
  });

  it("puts workspaces made before the directory into it with workspace reindex", async () => {
    const keystore = new Keystore({ redis, clock: systemClock });
    const name = `Legacy ${Date.now()}`;
    const workspace = await keystore.createWorkspace({ name, plan: "free" });
    // As a workspace written by 1.4 is: in the workspace set, in none of the directory's lists.
    const member = `${String(workspace.createdAt).padStart(15, "0")}:${workspace.id}`;
    await redis.zrem("sift:ws-index", member);
    await redis.zrem("sift:ws-plan:free", member);
    await redis.zrem("sift:ws-names", `${name.toLowerCase()}\u0000${workspace.id}`);
    expect((await keystore.pageWorkspaceIds({ q: name }, 10, null)).ids).toEqual([]);
    const { reindexed } = (await ok("workspace", "reindex")) as { reindexed: number };
    expect(reindexed).toBeGreaterThanOrEqual(1);
    expect((await keystore.pageWorkspaceIds({ q: name }, 10, null)).ids).toEqual([workspace.id]);
  });
});
