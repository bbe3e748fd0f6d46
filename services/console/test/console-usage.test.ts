import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { AuditLog } from "@sift/console/audit";
import { RefusalCounter } from "@sift/keystore";
import { DAY, ManualClock } from "@sift/runtime";
import { createKey, post, startStack, type Stack } from "@sift/testkit";
import { addUser, ConsoleClient } from "./helpers.ts";

/**
 * The usage and plan page through the gateway: the allowance state, the last 30 days with their
 * 429 counts as a table, and the operator's plan and limits (the same keystore call as `sift
 * workspace set`, each change in the audit log); everyone else reads them and is refused a change.
 */
let stack: Stack;
let refusals: RefusalCounter;
let audit: AuditLog;
const start = Date.UTC(2026, 5, 20, 15);
const clock = new ManualClock(start);
const today = Math.floor(start / DAY);
const operator = `usage-operator-${process.pid}@example.com`;
const owner = `usage-owner-${process.pid}@example.com`;

beforeAll(async () => {
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    clock,
    // The clock stands still, so the sign-in throttle never refills: room for every test's sign-in.
    console: {
      signInPerAccount: 100,
      signInAccountBurst: 100,
      signInPerAddress: 100,
      signInAddressBurst: 100,
    },
    trustProxy: 1,
  });
  refusals = new RefusalCounter({ redis: stack.redis, clock });
  audit = new AuditLog({ redis: stack.redis, clock });
  await addUser(stack, operator, { operator: true });
});
afterAll(() => stack?.stop());

const signedIn = async (email: string) => {
  // Its own address: this file's clock stands months before the others' (see ConsoleClient).
  const c = new ConsoleClient(stack.gatewayUrl, "203.0.113.31");
  expect((await c.signIn(email)).status).toBe(303);
  return c;
};

/** The figures of the days table's row for `day`: counted, rate limited, over allowance. */
const rowOf = (page: string, day: number): number[] => {
  const row = new RegExp(`<tr data-day="${day}">([\\s\\S]*?)</tr>`).exec(page)?.[1] ?? "";
  return [...row.matchAll(/data-value="(\d+)"/g)].map((m) => Number(m[1]));
};

describe("the usage and plan page", () => {
  it("shows the last 30 days as a table of counted calls and 429 answers by code", async () => {
    clock.set(start);
    const key = await createKey(stack.keystore, { kind: "classify", allowance: 100 });
    const workspace = (await stack.keystore.getWorkspace(key.workspaceId))!;
    clock.set(start - 3 * DAY);
    for (let i = 0; i < 4; i++) await stack.usage.admit(workspace);
    await refusals.count(key.workspaceId, "rate_limited");
    clock.set(start);
    for (let i = 0; i < 2; i++) await stack.usage.admit(workspace);
    for (let i = 0; i < 3; i++) await refusals.count(key.workspaceId, "rate_limited");
    await refusals.count(key.workspaceId, "quota_exceeded");

    const c = await signedIn(operator);
    const page = await c.get(`/console/w/${key.workspaceId}/usage`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Under the allowance");
    expect(page.text.match(/<tr data-day="\d+">/g)).toHaveLength(30);
    expect(rowOf(page.text, today)).toEqual([2, 3, 1]);
    expect(rowOf(page.text, today - 3)).toEqual([4, 1, 0]);
    expect(rowOf(page.text, today - 1)).toEqual([0, 0, 0]);
    expect(rowOf(page.text, today - 30)).toEqual([]);
    expect(page.text).toContain("429 answers: <strong>4</strong> rate limited");
    expect(page.text).toContain("<strong>1</strong> over the allowance");
    expect(page.text).toMatch(/Used in the last 30 days<\/th>\s*<td>6<\/td>/);
  });

  it("lets an operator set plan, allowance, rate limit, burst and classify, each change audited and in force", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const c = await signedIn(operator);
    const page = await c.get(`/console/w/${key.workspaceId}/usage`);
    expect(page.text).toContain('action="/console/w/' + key.workspaceId + '/usage"');
    const saved = await c.post(`/console/w/${key.workspaceId}/usage`, {
      plan: "paid",
      allowance: "50000",
      rateLimit: "2.5",
      burst: "7",
    });
    expect([saved.status, saved.headers.get("location")]).toEqual([
      303,
      `/console/w/${key.workspaceId}/usage`,
    ]);
    expect(await stack.keystore.getWorkspace(key.workspaceId)).toMatchObject({
      plan: "paid",
      allowance: 50_000,
      rateLimit: 2.5,
      burst: 7,
      classify: false,
    });
    // One change, one entry, under the name /v1 and the CLI record it with (issue 58).
    expect((await audit.recent(key.workspaceId)).map((e) => [e.actor, e.action, e.target])).toEqual([
      [
        operator,
        "workspace.update",
        `${key.workspaceId}: plan free → paid; allowance 1000 → 50000; classify on → off; rateLimit 20 → 2.5; burst 40 → 7`,
      ],
    ]);
    // Classify off reaches the gateway's key record at once.
    const call = await post(
      `${stack.gatewayUrl}/classify`,
      { content: "Hello", model: "spam-standard" },
      { authorization: `Bearer ${key.secretKey}` },
    );
    expect([call.status, (call.json as { message: string }).message]).toEqual([
      403,
      ClassifyMessage.classifyOff,
    ]);
    // The operator's list of workspaces says so, with the way to these settings.
    const listed = await c.get(`/console/?q=${encodeURIComponent(key.workspaceId)}`);
    const row = listed.text.split("</tr>").find((r) => r.includes(`<code>${key.workspaceId}</code>`)) ?? "";
    expect(row).toMatch(/<td>\s*off\s*<\/td>/);
    expect(row).toContain(`href="/console/w/${key.workspaceId}/usage#limits"`);

    // Saving the same values again changes and records nothing.
    await c.get(`/console/w/${key.workspaceId}/usage`);
    const again = await c.post(`/console/w/${key.workspaceId}/usage`, {
      plan: "paid",
      allowance: "50000",
      rateLimit: "2.5",
      burst: "7",
    });
    expect(again.status).toBe(303);
    expect(await audit.recent(key.workspaceId)).toHaveLength(1);
  });

  it("refuses values out of bounds with 400 and changes nothing", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const c = await signedIn(operator);
    for (const bad of [
      { plan: "gold", allowance: "10", rateLimit: "1", burst: "1" },
      { plan: "free", allowance: "-1", rateLimit: "1", burst: "1" },
      { plan: "free", allowance: "10", rateLimit: "0", burst: "1" },
      { plan: "free", allowance: "10", rateLimit: "1", burst: "1.5" },
      { plan: "free", allowance: "", rateLimit: "1", burst: "1" },
    ]) {
      await c.get(`/console/w/${key.workspaceId}/usage`);
      const answer = await c.post(`/console/w/${key.workspaceId}/usage`, { ...bad, classify: "on" });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('role="alert"');
    }
    expect(await stack.keystore.getWorkspace(key.workspaceId)).toMatchObject({
      plan: "free",
      allowance: 1_000,
      rateLimit: 20,
      burst: 40,
      classify: true,
    });
    expect(await audit.recent(key.workspaceId)).toEqual([]);
  });

  it("shows an owner the values read-only and answers their change 403", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    await addUser(stack, owner, { roles: { [key.workspaceId]: "owner" } });
    const c = await signedIn(owner);
    const page = await c.get(`/console/w/${key.workspaceId}/usage`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Only an operator of this Sift deployment changes the plan and limits.");
    expect(page.text).not.toContain('name="allowance"');
    expect((await c.get("/console/")).text).not.toContain("/usage#limits");
    const refused = await c.post(`/console/w/${key.workspaceId}/usage`, {
      plan: "paid",
      allowance: "999999",
      rateLimit: "1000",
      burst: "1000",
      classify: "on",
    });
    expect(refused.status).toBe(403);
    expect(await stack.keystore.getWorkspace(key.workspaceId)).toMatchObject({
      plan: "free",
      allowance: 1_000,
    });
    expect(await audit.recent(key.workspaceId)).toEqual([]);
  });

  it("names the grace period's end, then the pause (last: it moves the clock a week on)", async () => {
    clock.set(start);
    const key = await createKey(stack.keystore, { kind: "classify", allowance: 1 });
    await stack.usage.admit((await stack.keystore.getWorkspace(key.workspaceId))!);
    const c = await signedIn(operator);
    const grace = await c.get(`/console/w/${key.workspaceId}/usage`);
    expect(grace.text).toContain(
      "in the grace period: calls are still answered until 2026-06-27 15:00:00 UTC",
    );
    clock.set(start + 7 * DAY);
    // A week later the session has ended (its idle lifetime): a new one.
    const paused = await (await signedIn(operator)).get(`/console/w/${key.workspaceId}/usage`);
    expect(paused.text).toContain("Paused: over the allowance after the grace period");
  });
});
