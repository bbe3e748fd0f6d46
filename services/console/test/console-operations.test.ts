import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { FEEDBACK_QUEUE } from "@sift/contracts";
import { AuditTrail, Keystore } from "@sift/keystore";
import {
  CHOOSE_A_ROLE,
  NOT_AN_EMAIL,
  NOTHING_TO_LEARN,
  OWN_SECOND_FACTOR_FIRST,
  createInvitation,
  exportLog,
  joinWorkspace,
  operationDeps,
  reportVerdict,
  requireSecondFactor,
  revokeInvitation,
  type Actor,
  type OperationDeps,
} from "@sift/operations";
import { BullReportQueue, queueReport } from "@sift/reports";
import { silentLogger, systemClock } from "@sift/runtime";
import { LogKeyRing, RedisVerdictLog, type Verdict } from "@sift/verdicts";
import { WebhookStore } from "@sift/webhooks";
import { AccountStore } from "../src/clients/accounts.ts";
import { InvitationStore } from "../src/clients/invitations.ts";
import { SecondFactorStore } from "../src/clients/second-factor.ts";

/**
 * The changes only the console offers, as operations of @sift/operations on a real Redis with
 * the console's own stores: the rules that live in them now (validation, tenancy, the audit
 * entry each records), called as the console's routes call them. The reports go to a real
 * BullMQ queue under a prefix of this file's, so no learner of another file takes them.
 */
let redis: Redis;
let ops: OperationDeps;
let keystore: Keystore;
let trail: AuditTrail;
let accounts: AccountStore;
let invitations: InvitationStore;
let secondFactor: SecondFactorStore;
let verdicts: RedisVerdictLog;
let reportJobs: Queue;
const prefix = `sift-ops-test-${process.pid}`;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  const clock = systemClock;
  keystore = new Keystore({ redis, clock });
  trail = new AuditTrail({ redis, clock });
  accounts = new AccountStore({ redis, clock });
  invitations = new InvitationStore({ redis, clock, lifetimeMs: 3_600_000 });
  secondFactor = new SecondFactorStore({ redis, clock });
  verdicts = new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([]) });
  const reports = new BullReportQueue({ connection: redis, prefix });
  reportJobs = new Queue(FEEDBACK_QUEUE, { connection: redis, prefix });
  ops = operationDeps({
    redis,
    clock,
    logger: silentLogger(),
    webhooks: new WebhookStore({ redis, clock }),
    members: accounts,
    verdicts,
    invitations,
    secondFactor,
    reporter: { report: (input) => queueReport(reports, input) },
  });
});
afterAll(async () => {
  await reportJobs?.obliterate({ force: true });
  await reportJobs?.close();
  redis?.disconnect();
});

const unique = (name: string) => `${name}-${process.pid}-${randomUUID().slice(0, 8)}@example.com`;
const site = async () => (await keystore.createWorkspace({ name: "Ops site", plan: "free" })).id;
/** A console account acting in one workspace, as the console's pages make it. */
const member = async (workspaceId: string, role: "owner" | "editor" | "viewer" = "owner") => {
  const user = (await accounts.addUser({
    email: unique("member"),
    password: "correct horse battery staple",
    operator: false,
  }))!;
  await accounts.setRole(workspaceId, user.id, role);
  const actor: Actor = {
    audit: { type: "user", id: user.email },
    operator: false,
    workspaceId,
    userId: user.id,
  };
  return { user, actor };
};
/** The workspace's audit entries, oldest first, as GET /v1/audit pages them. */
const entriesOf = async (workspaceId: string) =>
  (await trail.page({ workspaceId, limit: 100 })).data.map(({ action, target, actor, before, after }) => ({
    action,
    target,
    actor,
    before,
    after,
  }));

describe("invitations as operations", () => {
  it("creates one with a normalised e-mail, records invitation.create and keeps no token in it", async () => {
    const ws = await site();
    const { actor } = await member(ws);
    const made = await createInvitation(ops, actor, ws, {
      email: "  New.Person@Example.COM ",
      role: "editor",
    });
    expect(made.ok).toBe(true);
    if (!made.ok) return;
    expect(made.value.invitation).toMatchObject({
      workspaceId: ws,
      email: "new.person@example.com",
      role: "editor",
      invitedBy: actor.audit.id,
    });
    expect(made.value.token).toMatch(/^[\w-]{43}$/);
    expect((await invitations.pending(ws)).map((i) => i.email)).toEqual(["new.person@example.com"]);
    const entries = await entriesOf(ws);
    expect(entries).toEqual([
      {
        action: "invitation.create",
        target: "new.person@example.com",
        actor: actor.audit,
        before: undefined,
        after: { email: "new.person@example.com", role: "editor" },
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(made.value.token);
  });

  it("refuses a bad e-mail, a bad role and a member's e-mail, and changes nothing", async () => {
    const ws = await site();
    const { actor, user } = await member(ws);
    expect(await createInvitation(ops, actor, ws, { email: "not an address", role: "editor" })).toEqual({
      ok: false,
      code: "invalid",
      message: NOT_AN_EMAIL,
    });
    expect(await createInvitation(ops, actor, ws, { email: unique("x"), role: "operator" })).toEqual({
      ok: false,
      code: "invalid",
      message: CHOOSE_A_ROLE,
    });
    const again = await createInvitation(ops, actor, ws, { email: user.email.toUpperCase(), role: "viewer" });
    expect(again).toMatchObject({ ok: false, code: "conflict" });
    expect(await invitations.pending(ws)).toEqual([]);
    expect(await entriesOf(ws)).toEqual([]);
  });

  it("answers another workspace's member as if the workspace did not exist, inviting or revoking", async () => {
    const mine = await site();
    const theirs = await site();
    const { actor } = await member(mine);
    const invited = await createInvitation(ops, actor, theirs, { email: unique("x"), role: "viewer" });
    expect(invited).toMatchObject({ ok: false, code: "not_found" });
    const { actor: owner } = await member(theirs);
    const pending = await createInvitation(ops, owner, theirs, { email: unique("y"), role: "viewer" });
    if (!pending.ok) throw new Error(pending.message);
    const id = pending.value.invitation.id;
    // Their invitation's id, asked from my workspace and in theirs: unknown both ways.
    expect(await revokeInvitation(ops, actor, mine, id)).toMatchObject({ ok: false, code: "not_found" });
    expect(await revokeInvitation(ops, actor, theirs, id)).toMatchObject({ ok: false, code: "not_found" });
    expect((await invitations.pending(theirs)).map((i) => i.id)).toEqual([id]);
    expect(await entriesOf(mine)).toEqual([]);
  });

  it("revokes a pending one once, recording invitation.revoke with what it was", async () => {
    const ws = await site();
    const { actor } = await member(ws);
    const email = unique("invitee");
    const made = await createInvitation(ops, actor, ws, { email, role: "viewer" });
    if (!made.ok) throw new Error(made.message);
    const revoked = await revokeInvitation(ops, actor, ws, made.value.invitation.id);
    expect(revoked).toMatchObject({ ok: true, value: { email, role: "viewer" } });
    expect(await invitations.peek(made.value.token)).toBeNull();
    expect(await revokeInvitation(ops, actor, ws, made.value.invitation.id)).toMatchObject({ ok: false });
    expect((await entriesOf(ws)).map((e) => [e.action, e.target, e.before])).toEqual([
      ["invitation.create", email, undefined],
      ["invitation.revoke", email, { email, role: "viewer" }],
    ]);
  });
});

describe("joining as an operation", () => {
  const invitee = async (email: string) => {
    const user = (await accounts.addUser({
      email,
      password: "correct horse battery staple",
      operator: false,
    }))!;
    return {
      user,
      actor: { audit: { type: "user", id: user.email }, operator: false, userId: user.id } as const,
    };
  };

  it("makes the invitee a member with the invitation's role and records member.join as them", async () => {
    const ws = await site();
    const { user, actor } = await invitee(unique("joiner"));
    const joined = await joinWorkspace(
      ops,
      { ...actor, workspaceId: ws },
      { workspaceId: ws, email: user.email, role: "editor" },
    );
    expect(joined).toEqual({ ok: true, value: { workspaceId: ws, role: "editor" } });
    expect(await accounts.roleIn(ws, user.id)).toBe("editor");
    expect(await entriesOf(ws)).toEqual([
      {
        action: "member.join",
        target: user.email,
        actor: actor.audit,
        before: undefined,
        after: { role: "editor" },
      },
    ]);
  });

  it("keeps a member's own role, and lets no one join on another's invitation", async () => {
    const ws = await site();
    const { user, actor } = await member(ws, "owner");
    const invitation = { workspaceId: ws, email: user.email, role: "viewer" } as const;
    expect(await joinWorkspace(ops, actor, invitation)).toEqual({
      ok: true,
      value: { workspaceId: ws, role: "owner" },
    });
    expect(await accounts.roleIn(ws, user.id)).toBe("owner");
    const other = await invitee(unique("other"));
    const taken = await joinWorkspace(ops, { ...other.actor, workspaceId: ws }, invitation);
    expect(taken).toMatchObject({ ok: false, code: "not_found" });
    expect(await accounts.roleIn(ws, other.user.id)).toBeNull();
    expect((await entriesOf(ws)).map((e) => [e.action, e.after])).toEqual([
      ["member.join", { role: "owner" }],
    ]);
  });
});

describe("a site's second-factor requirement as an operation", () => {
  const turnOn = async (userId: string, email: string) => {
    const { secret } = await secondFactor.beginEnrollment(userId, email);
    const code = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
    expect(await secondFactor.confirmEnrollment(userId, code)).not.toBeNull();
  };

  it("refuses to ask it of everyone while the asker has none, then records the change once", async () => {
    const ws = await site();
    const { user, actor } = await member(ws);
    expect(await requireSecondFactor(ops, actor, ws, true)).toEqual({
      ok: false,
      code: "conflict",
      message: OWN_SECOND_FACTOR_FIRST,
    });
    expect(await secondFactor.requiredIn(ws)).toBe(false);
    await turnOn(user.id, user.email);
    expect(await requireSecondFactor(ops, actor, ws, true)).toEqual({
      ok: true,
      value: { workspaceId: ws, required: true },
    });
    // Asked again: nothing changes, nothing is recorded.
    expect((await requireSecondFactor(ops, actor, ws, true)).ok).toBe(true);
    expect(await requireSecondFactor(ops, actor, ws, false)).toMatchObject({ ok: true });
    expect(await secondFactor.requiredIn(ws)).toBe(false);
    expect(await entriesOf(ws)).toEqual([
      {
        action: "workspace.second-factor",
        target: ws,
        actor: actor.audit,
        before: { secondFactor: "not required" },
        after: { secondFactor: "required" },
      },
      {
        action: "workspace.second-factor",
        target: ws,
        actor: actor.audit,
        before: { secondFactor: "required" },
        after: { secondFactor: "not required" },
      },
    ]);
  });

  it("answers another workspace's member with not found and changes nothing there", async () => {
    const mine = await site();
    const theirs = await site();
    const { actor } = await member(mine);
    expect(await requireSecondFactor(ops, actor, theirs, false)).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await entriesOf(theirs)).toEqual([]);
  });
});

/** A classify verdict in the workspace's log, its redacted text kept (no log key needed). */
const classified = async (workspaceId: string, fields: Array<[string, string]>) =>
  (await verdicts.append(
    {
      time: Date.now(),
      workspaceId,
      configId: "cfg_ops",
      operation: "classify",
      label: "spam",
      score: 0.6,
      model: "message",
      reasons: [],
      listHits: [],
      fields,
      fingerprint: "",
    },
    { privacy: "redacted", retentionDays: 30, maxEntries: 1_000 },
  ))!;

describe("a review's report as an operation", () => {
  it("queues the report POST /feedback queues, records the review in the verdict and report.create", async () => {
    const ws = await site();
    const { actor } = await member(ws, "editor");
    const id = await classified(ws, [["message", "Buy cheap backlinks now at rank-first"]]);
    const reported = await reportVerdict(ops, actor, ws, {
      verdictId: id,
      label: "clean",
      requestId: "console-t1",
    });
    expect(reported).toEqual({ ok: true, value: { verdictId: id, label: "clean" } });
    const jobs = await reportJobs.getJobs(["waiting", "prioritized", "delayed"]);
    const job = jobs.find((j) => (j.data as { workspaceId?: string }).workspaceId === ws);
    expect(job?.data).toMatchObject({ workspaceId: ws, label: "clean", requestId: "console-t1" });
    const v = (await verdicts.get(ws, id))!;
    expect(v.review).toBe("clean");
    expect(v.history.map((h) => [h.state, h.by])).toEqual([["clean", actor.audit.id]]);
    expect(await entriesOf(ws)).toEqual([
      {
        action: "report.create",
        target: id,
        actor: actor.audit,
        before: undefined,
        after: { label: "clean" },
      },
    ]);
  });

  it("reads another workspace's verdict as unknown, and refuses one with nothing to learn from", async () => {
    const mine = await site();
    const theirs = await site();
    const { actor } = await member(mine, "editor");
    const theirsId = await classified(theirs, [["message", "hello there"]]);
    for (const where of [mine, theirs]) {
      const answer = await reportVerdict(ops, actor, where, {
        verdictId: theirsId,
        label: "spam",
        requestId: "x",
      });
      expect(answer).toMatchObject({ ok: false, code: "not_found" });
    }
    const bare = await classified(mine, []);
    expect(await reportVerdict(ops, actor, mine, { verdictId: bare, label: "spam", requestId: "x" })).toEqual(
      {
        ok: false,
        code: "invalid",
        message: NOTHING_TO_LEARN,
      },
    );
    expect((await verdicts.get(theirs, theirsId))!.review).toBe("unreviewed");
    expect(await entriesOf(mine)).toEqual([]);
    expect(await entriesOf(theirs)).toEqual([]);
  });
});

describe("an export of the verdict log as an operation", () => {
  const collect = async (rows: AsyncIterable<Verdict>) => {
    const seen: string[] = [];
    for await (const v of rows) seen.push(v.id);
    return seen;
  };

  it("hands the matching verdicts to the download and records how many, in which format", async () => {
    const ws = await site();
    const { actor } = await member(ws, "viewer");
    const ids = [await classified(ws, [["message", "one"]]), await classified(ws, [["message", "two"]])];
    let written: string[] = [];
    const exported = await exportLog(ops, actor, ws, { format: "json", filter: {} }, async (rows, format) => {
      expect(format).toBe("json");
      written = await collect(rows);
      return written.length;
    });
    expect(exported).toEqual({ ok: true, value: { workspaceId: ws, verdicts: 2, format: "json" } });
    expect([...written].sort()).toEqual([...ids].sort());
    expect(await entriesOf(ws)).toEqual([
      {
        action: "workspace.export-log",
        target: ws,
        actor: actor.audit,
        before: undefined,
        after: { verdicts: 2, format: "json" },
      },
    ]);
  });

  it("refuses an unknown format and another workspace's log before reading a row; a failed download records nothing", async () => {
    const mine = await site();
    const theirs = await site();
    await classified(theirs, [["message", "theirs"]]);
    const { actor } = await member(mine, "viewer");
    let reads = 0;
    const write = async (rows: AsyncIterable<Verdict>) => (reads += (await collect(rows)).length);
    expect(await exportLog(ops, actor, mine, { format: "xml", filter: {} }, write)).toMatchObject({
      code: "invalid",
    });
    expect(await exportLog(ops, actor, theirs, { format: "csv", filter: {} }, write)).toMatchObject({
      code: "not_found",
    });
    expect(reads).toBe(0);
    await expect(
      exportLog(ops, actor, mine, { format: "csv", filter: {} }, () =>
        Promise.reject(new Error("reader gone")),
      ),
    ).rejects.toThrow("reader gone");
    expect(await entriesOf(mine)).toEqual([]);
    expect(await entriesOf(theirs)).toEqual([]);
  });
});
