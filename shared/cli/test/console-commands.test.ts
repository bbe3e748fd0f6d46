import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AccountStore } from "@sift/console/accounts";
import { checkPassword } from "@sift/console/password";
import { ReportStore } from "@sift/feedback";
import { AuditTrail, Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { systemClock } from "@sift/runtime";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

let redis: Redis;
let keys: Keystore;
let accounts: AccountStore;
let password = "";
let cli: (...argv: string[]) => ReturnType<typeof runCli>;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  keys = new Keystore({ redis, clock: systemClock });
  accounts = new AccountStore({ redis, clock: systemClock });
  const deps = {
    keystore: keys,
    operations: cliOperations(redis),
    usage: new RedisUsageMeter({ redis, clock: systemClock }),
    notices: new NoticeStore({ redis }),
    reports: new ReportStore({ redis }),
    console: { accounts, readPassword: async () => password },
  };
  cli = (...argv) => runCli(argv, deps);
});
afterAll(() => redis?.quit());

const unique = (name: string) => `${name}-${process.pid}-${Date.now()}@example.com`;

describe("sift console", () => {
  it("adds an operator with the password it reads (hashed with Argon2id), once per e-mail", async () => {
    const email = unique("op");
    password = "a long enough password";
    const since = Date.now();
    const added = await cli("console", "user", "add", "--email", email, "--operator");
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ email, operator: true });
    const found = await accounts.credentials(email);
    expect(found?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await checkPassword(found!.passwordHash, password)).toBe(true);
    expect(await cli("console", "user", "add", "--email", email)).toMatchObject({ code: 2 });
    // One entry, by the operation's name (`user.create`), never with the password.
    const { data } = await new AuditTrail({ redis, clock: systemClock }).page({ since, limit: 1000 });
    const entries = data.filter((e) => e.target === email);
    expect(entries.map((e) => [e.action, e.actor.type])).toEqual([["user.create", "cli"]]);
    expect(entries[0]?.after).toMatchObject({ email, operator: true });
    expect(JSON.stringify(entries)).not.toContain(password);
  });

  it("refuses a short password, a bad e-mail and a password given as an argument", async () => {
    password = "short";
    expect((await cli("console", "user", "add", "--email", unique("s"))).stderr).toMatch(/at least 12/);
    password = "a long enough password";
    expect(await cli("console", "user", "add", "--email", "not-an-email")).toMatchObject({ code: 2 });
    expect(await cli("console", "user", "add", "--email", unique("p"), "--password", "x")).toMatchObject({
      code: 2,
    });
  });

  it("sets and removes a member's role in a workspace", async () => {
    const email = unique("member");
    password = "a long enough password";
    await cli("console", "user", "add", "--email", email);
    const ws = (await keys.createWorkspace({ name: "site", plan: "free" })).id;
    expect(
      (await cli("console", "member", "set", "--workspace", ws, "--email", email, "--role", "editor")).code,
    ).toBe(0);
    const user = await accounts.userByEmail(email);
    expect(await accounts.roleIn(ws, user!.id)).toBe("editor");
    expect(
      await cli("console", "member", "set", "--workspace", ws, "--email", email, "--role", "god"),
    ).toMatchObject({ code: 2 });
    await cli("console", "member", "set", "--workspace", ws, "--email", email, "--role", "none");
    expect(await accounts.roleIn(ws, user!.id)).toBeNull();
  });

  it("keeps a workspace's last owner, as the console does, and records each change as member.*", async () => {
    const email = unique("owner");
    password = "a long enough password";
    await cli("console", "user", "add", "--email", email);
    const ws = (await keys.createWorkspace({ name: "owned", plan: "free" })).id;
    const set = (role: string) =>
      cli("console", "member", "set", "--workspace", ws, "--email", email, "--role", role);
    expect((await set("owner")).code).toBe(0);
    // The only owner: neither demoted nor removed (exit 2, the console's sentence), role unchanged.
    for (const role of ["editor", "none"]) {
      const refused = await set(role);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("keeps at least one owner");
    }
    const user = await accounts.userByEmail(email);
    expect(await accounts.roleIn(ws, user!.id)).toBe("owner");
    const { data } = await new AuditTrail({ redis, clock: systemClock }).page({ workspaceId: ws, limit: 10 });
    expect(data.map((e) => [e.action, e.actor.type, e.target])).toEqual([["member.role", "cli", email]]);
  });

  it("reads the password from standard input when run as the sift command", async () => {
    const email = unique("stdin");
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", main, "console", "user", "add", "--email", email],
      {
        env: { ...process.env, REDIS_URL: inject("redisUrl") },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    child.stdin.end("piped password 123\n");
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ email, operator: false });
    const found = await accounts.credentials(email);
    expect(await checkPassword(found!.passwordHash, "piped password 123")).toBe(true);
  });
});
