import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createKey, startStack, type Stack } from "@sift/testkit";
import { DAY, ManualClock, MINUTE } from "@sift/runtime";
import { AccountStore } from "@sift/console/accounts";
import { Secret, TOTP } from "otpauth";
import { addUser, ConsoleClient, PASSWORD } from "./helpers.ts";

let stack: Stack;
let clock: ManualClock;
let ws: Awaited<ReturnType<typeof createKey>>;
let other: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    clock,
    console: { inviteLifetimeMs: 2 * DAY, sessionIdleMs: 30 * MINUTE },
    trustProxy: 1,
  });
  ws = await createKey(stack.keystore, { kind: "classify" });
  other = await createKey(stack.keystore, { kind: "classify" });
});
afterAll(() => stack.stop());

/** This file's client address: it moves its clock days ahead (see ConsoleClient). */
const ADDRESS = "203.0.113.27";

const client = () => new ConsoleClient(stack.gatewayUrl, ADDRESS);
/** The store as the CLI reads it. */
const accounts = () => new AccountStore({ redis: stack.redis, clock: stack.clock });
const roleIn = (workspaceId: string, userId: string) => accounts().roleIn(workspaceId, userId);

let users = 0;
// "access-" keeps these apart from the other console files' users (same Redis, maybe the same pid).
const email = (what: string) => `access-${what}${++users}-${process.pid}@example.com`;

/** A new user with `role` in `ws` (and nothing elsewhere), signed in on their own client. */
const signedIn = async (role: "owner" | "editor" | "viewer", workspace = ws.workspaceId) => {
  const address = email(role);
  const user = await addUser(stack, address, { roles: { [workspace]: role } });
  const c = client();
  await c.signIn(address);
  return { c, user, address };
};

/** A workspace of its own with one owner, for tests that count owners. */
const freshWorkspace = async () => (await createKey(stack.keystore, { kind: "classify" })).workspaceId;

const members = (id: string) => `/console/w/${id}/members`;
const inviteToken = (text: string) => /\/console\/invite\/([\w-]{43})</.exec(text)?.[1];

describe("members", () => {
  it("lists members with role and since, and lets an owner change a role, with an audit entry", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    const viewer = await addUser(stack, email("member"), { roles: { [id]: "viewer" } });
    const page = await owner.c.get(members(id));
    expect(page.status).toBe(200);
    expect(page.text).toContain(viewer.email);
    expect(page.text).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(page.text).toContain("Create invitation link");
    expect((await owner.c.post(`${members(id)}/role`, { user: viewer.id, role: "editor" })).status).toBe(303);
    expect(await roleIn(id, viewer.id)).toBe("editor");
    const audit = await owner.c.get(`/console/w/${id}/audit`);
    expect(audit.text).toContain("member.role");
    expect(audit.text).toContain(`${viewer.email}: role viewer → editor`);
    expect((await owner.c.post(`${members(id)}/remove`, { user: viewer.id })).status).toBe(303);
    expect(await roleIn(id, viewer.id)).toBeNull();
    expect((await owner.c.get(`/console/w/${id}/audit`)).text).toContain("member.remove");
  });

  it("shows viewers and editors the list without forms and answers their changes 403", async () => {
    const id = await freshWorkspace();
    const owner = await addUser(stack, email("owner"), { roles: { [id]: "owner" } });
    for (const role of ["viewer", "editor"] as const) {
      const { c } = await signedIn(role, id);
      const page = await c.get(members(id));
      expect(page.status).toBe(200);
      expect(page.text).toContain(owner.email);
      expect(page.text).not.toContain("Create invitation link");
      expect(page.text).not.toContain(`${members(id)}/role`);
      expect((await c.post(`${members(id)}/role`, { user: owner.id, role: "viewer" })).status).toBe(403);
      expect((await c.post(`${members(id)}/remove`, { user: owner.id })).status).toBe(403);
      expect((await c.post(`${members(id)}/invite`, { email: email("x"), role: "owner" })).status).toBe(403);
    }
    expect(await roleIn(id, owner.id)).toBe("owner");
  });

  it("answers 404 for another workspace's members page and for a user who is not a member", async () => {
    const { c } = await signedIn("owner");
    const page = await c.get(members(other.workspaceId));
    expect(page.status).toBe(404);
    const outsider = await addUser(stack, email("outsider"), { roles: { [other.workspaceId]: "owner" } });
    expect(page.text).not.toContain(outsider.email);
    await c.get(members(ws.workspaceId));
    expect(
      (await c.post(`${members(ws.workspaceId)}/role`, { user: outsider.id, role: "viewer" })).status,
    ).toBe(404);
    expect((await c.post(`${members(ws.workspaceId)}/remove`, { user: outsider.id })).status).toBe(404);
    expect(await roleIn(other.workspaceId, outsider.id)).toBe("owner");
  });

  it("keeps the last owner: neither demoted nor removed, and says why", async () => {
    const id = await freshWorkspace();
    const { c, user } = await signedIn("owner", id);
    await c.get(members(id));
    const demoted = await c.post(`${members(id)}/role`, { user: user.id, role: "editor" });
    expect(demoted.status).toBe(409);
    expect(demoted.text).toContain("A workspace keeps at least one owner");
    expect((await c.post(`${members(id)}/remove`, { user: user.id })).status).toBe(409);
    expect(await roleIn(id, user.id)).toBe("owner");
    // With a second owner, the first may step down.
    const second = await addUser(stack, email("second"), { roles: { [id]: "owner" } });
    expect((await c.post(`${members(id)}/role`, { user: user.id, role: "viewer" })).status).toBe(303);
    const operator = client();
    const op = email("operator");
    await addUser(stack, op, { operator: true });
    await operator.signIn(op);
    await operator.get(members(id));
    expect((await operator.post(`${members(id)}/remove`, { user: second.id })).status).toBe(409);
  });
});

describe("invitations", () => {
  it("makes a one-time link for a new e-mail, whose invitee chooses a password and is signed in", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    await owner.c.get(members(id));
    const invitee = email("Invitee").toUpperCase();
    const created = await owner.c.post(`${members(id)}/invite`, { email: invitee, role: "editor" });
    expect(created.status).toBe(201);
    const token = inviteToken(created.text)!;
    expect(token).toBeDefined();
    expect(JSON.stringify(await dumpConsoleKeys())).not.toContain(token);
    const pending = await owner.c.get(members(id));
    expect(pending.text).toContain(invitee.toLowerCase());
    expect(pending.text).not.toContain(token);

    const guest = client();
    const page = await guest.get(`/console/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Choose a password");
    expect(
      (await guest.post(`/console/invite/${token}`, { password: "short", repeat: "short" })).status,
    ).toBe(400);
    expect(
      (
        await guest.post(`/console/invite/${token}`, {
          password: PASSWORD,
          repeat: PASSWORD,
          _csrf: "forged",
        })
      ).status,
    ).toBe(403);
    const accepted = await guest.post(`/console/invite/${token}`, { password: PASSWORD, repeat: PASSWORD });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/console/w/${id}/sites`);
    expect(guest.cookies.get("sift_session")).toBeDefined();
    expect(guest.cookies.has("sift_presession")).toBe(false);
    expect((await guest.get(`/console/w/${id}/sites`)).status).toBe(200);
    const user = await accounts().userByEmail(invitee);
    expect(await roleIn(id, user!.id)).toBe("editor");
    // Signing in later works with the chosen password.
    expect((await client().signIn(invitee)).status).toBe(303);

    // Used once: the link is dead now, for anyone.
    const again = client();
    expect((await again.get(`/console/invite/${token}`)).status).toBe(410);
    expect((await guest.get(`/console/invite/${token}`)).status).toBe(410);
    const audit = (await owner.c.get(`/console/w/${id}/audit`)).text;
    // The change's action names, never the door's (`console.…`): the actor says who and how.
    expect(audit).toContain("invitation.create");
    expect(audit).toContain("member.join");
    expect(audit).not.toMatch(/console\.[a-z-]+\.[a-z]/);
    expect((await owner.c.get(members(id))).text).toContain("No pending invitation.");
  });

  it("lets only one of two accepts of one link sent at once succeed", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    await owner.c.get(members(id));
    const invitee = email("racer");
    const token = inviteToken(
      (await owner.c.post(`${members(id)}/invite`, { email: invitee, role: "viewer" })).text,
    )!;
    const racers = [client(), client()];
    for (const r of racers) await r.get(`/console/invite/${token}`);
    const answers = await Promise.all(
      racers.map((r) => r.post(`/console/invite/${token}`, { password: PASSWORD, repeat: PASSWORD })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([303, 410]);
    expect(racers.filter((r) => r.cookies.has("sift_session"))).toHaveLength(1);
    const joined = (await owner.c.get(`/console/w/${id}/audit`)).text.match(/member\.join/g);
    expect(joined).toHaveLength(1);
  });

  it("asks an existing user to sign in as that user, throttled, then joins them", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    const existing = await addUser(stack, email("existing"), { roles: { [other.workspaceId]: "viewer" } });
    await owner.c.get(members(id));
    const token = inviteToken(
      (await owner.c.post(`${members(id)}/invite`, { email: existing.email, role: "viewer" })).text,
    )!;
    const guest = client();
    expect((await guest.get(`/console/invite/${token}`)).text).toContain("Sign in and join");
    const wrong = await guest.post(`/console/invite/${token}`, { password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("The e-mail or the password is wrong.");
    expect((await guest.post(`/console/invite/${token}`, { password: PASSWORD })).status).toBe(303);
    expect(await roleIn(id, existing.id)).toBe("viewer");
    expect((await guest.get(`/console/w/${id}/members`)).status).toBe(200);

    // Someone signed in as another user is told so and cannot use a link that is not theirs.
    const token2 = inviteToken(
      (await owner.c.post(`${members(id)}/invite`, { email: email("someone"), role: "viewer" })).text,
    )!;
    const page = await owner.c.get(`/console/invite/${token2}`);
    expect(page.text).toContain(`You are signed in as ${owner.address}`);
    expect((await owner.c.post(`/console/invite/${token2}`, {})).status).toBe(403);
    expect((await client().get(`/console/invite/${token2}`)).status).toBe(200);
  });

  it("lets an already signed-in invitee join with one click", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    const invitee = await signedIn("viewer", other.workspaceId);
    await owner.c.get(members(id));
    const token = inviteToken(
      (await owner.c.post(`${members(id)}/invite`, { email: invitee.address, role: "owner" })).text,
    )!;
    const before = invitee.c.cookies.get("sift_session");
    expect((await invitee.c.get(`/console/invite/${token}`)).text).toContain(">Join<");
    expect((await invitee.c.post(`/console/invite/${token}`, {})).status).toBe(303);
    expect(invitee.c.cookies.get("sift_session")).toBe(before);
    expect(await roleIn(id, invitee.user.id)).toBe("owner");
  });

  it("refuses an expired link with 410 and no data, and a revoked one too", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    await owner.c.get(members(id));
    const invitee = email("late");
    const token = inviteToken(
      (await owner.c.post(`${members(id)}/invite`, { email: invitee, role: "viewer" })).text,
    )!;
    expect((await client().get(`/console/invite/${token}`)).status).toBe(200);
    clock.advance(2 * DAY + 1);
    const expired = await client().get(`/console/invite/${token}`);
    expect(expired.status).toBe(410);
    expect(expired.text).toContain("Invitation not valid");
    expect(expired.text).not.toContain(invitee);
    const guest = client();
    await guest.get("/console/sign-in");
    expect(
      (await guest.post(`/console/invite/${token}`, { password: PASSWORD, repeat: PASSWORD })).status,
    ).toBe(410);
    expect(await accounts().userByEmail(invitee)).toBeNull();
    expect((await client().get(`/console/invite/${"x".repeat(43)}`)).status).toBe(410);

    await owner.c.signIn(owner.address);
    await owner.c.get(members(id));
    const revokedEmail = email("revoked");
    const created = await owner.c.post(`${members(id)}/invite`, { email: revokedEmail, role: "viewer" });
    const revokable = inviteToken(created.text)!;
    const listed = await owner.c.get(members(id));
    const inviteId = /name="invite" value="(inv_[\w-]+)"/.exec(listed.text)![1]!;
    // An invitation id answers 404 under another workspace.
    const foreign = await signedIn("owner", other.workspaceId);
    await foreign.c.get(members(other.workspaceId));
    expect(
      (await foreign.c.post(`${members(other.workspaceId)}/invites/revoke`, { invite: inviteId })).status,
    ).toBe(404);
    expect((await owner.c.post(`${members(id)}/invites/revoke`, { invite: inviteId })).status).toBe(303);
    expect((await client().get(`/console/invite/${revokable}`)).status).toBe(410);
    const audit = (await owner.c.get(`/console/w/${id}/audit`)).text;
    expect(audit).toContain("invitation.revoke");
    expect(audit).not.toMatch(/console\.[a-z-]+\.[a-z]/);
  });

  it("shows a hostile invited e-mail as text", async () => {
    const id = await freshWorkspace();
    const owner = await signedIn("owner", id);
    await owner.c.get(members(id));
    const hostile = `"><script>alert(1)</script>@example.com`;
    const created = await owner.c.post(`${members(id)}/invite`, { email: hostile, role: "viewer" });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain("<script>alert(1)");
    expect(created.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    const token = inviteToken(created.text)!;
    const page = await client().get(`/console/invite/${token}`);
    expect(page.text).not.toContain("<script>alert(1)");
    expect(page.text).toContain("&quot;&gt;&lt;script&gt;");
  });

  it("refuses an invitation for someone who is a member already", async () => {
    const { c } = await signedIn("owner");
    const member = await addUser(stack, email("member"), { roles: { [ws.workspaceId]: "viewer" } });
    await c.get(members(ws.workspaceId));
    const page = await c.post(`${members(ws.workspaceId)}/invite`, { email: member.email, role: "owner" });
    expect(page.status).toBe(409);
    expect(page.text).toContain("is a member already");
  });
});

describe("your sessions", () => {
  it("lists the user's sessions with browser and address, marks this one, and revokes another at once", async () => {
    const address = email("sessions");
    await addUser(stack, address, { roles: { [ws.workspaceId]: "viewer" } });
    const a = client();
    const b = client();
    await a.get("/console/sign-in");
    await a.request("/console/sign-in", {
      method: "POST",
      headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0" },
      fields: { _csrf: a.csrf, email: address, password: PASSWORD },
    });
    await b.get("/console/sign-in");
    await b.request("/console/sign-in", {
      method: "POST",
      headers: { "user-agent": `<script>alert("ua")</script>` },
      fields: { _csrf: b.csrf, email: address, password: PASSWORD },
    });
    const page = await a.get("/console/account", {
      "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Firefox 132 on Linux");
    expect(page.text).toContain("&lt;script&gt;alert(&quot;ua&quot;)&lt;/script&gt;");
    expect(page.text).not.toContain(`<script>alert("ua")`);
    expect(page.text).toContain(`<td>${ADDRESS}</td>`);
    expect(page.text.match(/\(this session\)/g)).toHaveLength(1);
    const refs = [...page.text.matchAll(/name="session" value="([\w-]+)"/g)].map((m) => m[1]!);
    expect(refs).toHaveLength(2);
    // The session ids are not the token hashes stored as Redis keys.
    for (const ref of refs) expect(await stack.redis.keys(`*${ref}*`)).toEqual([]);
    // B's row is the one not marked as this session.
    const rows = page.text.split("<tr>").slice(2);
    const bRef = /name="session" value="([\w-]+)"/.exec(rows.find((r) => !r.includes("this session"))!)![1]!;
    expect((await a.post("/console/account/sessions/revoke", { session: bRef })).status).toBe(303);
    expect((await b.get("/console/")).status).toBe(303);
    expect((await a.get("/console/")).status).toBe(200);
    const after = await a.get("/console/account");
    expect([...after.text.matchAll(/name="session" value="/g)]).toHaveLength(1);
    // Another user's session handle is not found under one's own.
    expect((await a.post("/console/account/sessions/revoke", { session: bRef })).status).toBe(404);
  });

  it("drops sessions ended idle from the list and signs out when revoking this session", async () => {
    const address = email("idle");
    await addUser(stack, address, { roles: { [ws.workspaceId]: "viewer" } });
    const stale = client();
    await stale.signIn(address);
    clock.advance(31 * MINUTE);
    const c = client();
    await c.signIn(address);
    const page = await c.get("/console/account");
    expect([...page.text.matchAll(/name="session" value="/g)]).toHaveLength(1);
    const ref = /name="session" value="([\w-]+)"/.exec(page.text)![1]!;
    const out = await c.post("/console/account/sessions/revoke", { session: ref });
    expect(out.headers.get("location")).toBe("/console/sign-in");
    expect((await c.get("/console/")).status).toBe(303);
  });

  it("keeps the user's index of sessions no longer than a session can live", async () => {
    const address = email("index");
    const user = await addUser(stack, address, { roles: { [ws.workspaceId]: "viewer" } });
    await client().signIn(address);
    const ttl = await stack.redis.pttl(`sift:console:user-sessions:${user.id}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
  });
});

/** Every console key and value in Redis, to look for a token that must not be stored. */
const dumpConsoleKeys = async () => {
  const keys = await stack.redis.keys("sift:console:*");
  return Promise.all(
    keys.map(async (k) => {
      const type = await stack.redis.type(k);
      if (type === "string") return [k, await stack.redis.get(k)];
      if (type === "hash") return [k, await stack.redis.hgetall(k)];
      return [k, type];
    }),
  );
};

describe("a second factor (TOTP and recovery codes)", () => {
  const code = (secret: string, at = clock.now()) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({ timestamp: at });
  const keyOf = (page: string) => /id="totp-secret">([A-Z2-7]+)</.exec(page)![1]!;

  it("turns on with the app's code, then asks for a code at sign-in: each code once, each recovery code once", async () => {
    const { c, address } = await signedIn("owner");
    const setup = await c.get("/console/account/second-factor");
    expect(setup.status).toBe(200);
    const secret = keyOf(setup.text);
    expect(setup.text).toContain("otpauth://totp/Sift:");
    expect((await c.post("/console/account/second-factor", { code: "000000" })).status).toBe(400);
    const on = await c.post("/console/account/second-factor", { code: code(secret) });
    expect(on.status).toBe(200);
    const recovery = [...on.text.matchAll(/<li><code>([0-9a-f-]{23})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(recovery).toHaveLength(10);
    // Redis holds the recovery codes only as hashes.
    const keys = await stack.redis.keys("sift:console:totp-recovery:*");
    const stored = (await Promise.all(keys.map((k) => stack.redis.smembers(k)))).flat();
    expect(stored.some((h) => recovery.some((r) => h.includes(r) || r.includes(h)))).toBe(false);

    // Sign-in: the password alone starts no session.
    clock.advance(30_000);
    const next = client();
    await next.get("/console/sign-in");
    const first = await next.post("/console/sign-in", { email: address, password: PASSWORD });
    expect(first.status).toBe(200);
    expect(first.text).toContain('action="/console/sign-in/code"');
    expect(next.cookies.has("sift_session")).toBe(false);
    expect((await next.post("/console/sign-in/code", { code: "123456" })).status).toBe(401);
    const fresh = code(secret);
    const done = await next.post("/console/sign-in/code", { code: fresh });
    expect(done.status).toBe(303);
    expect(next.cookies.has("sift_session")).toBe(true);
    expect((await next.get(`/console/w/${ws.workspaceId}/sites`)).status).toBe(200);

    // The same code again (a replay within its window) is refused; a recovery code works once.
    clock.advance(MINUTE);
    const replay = client();
    await replay.get("/console/sign-in");
    await replay.post("/console/sign-in", { email: address, password: PASSWORD });
    expect((await replay.post("/console/sign-in/code", { code: fresh })).status).toBe(401);
    expect((await replay.post("/console/sign-in/code", { code: recovery[0]! })).status).toBe(303);
    clock.advance(MINUTE);
    const again = client();
    await again.get("/console/sign-in");
    await again.post("/console/sign-in", { email: address, password: PASSWORD });
    expect((await again.post("/console/sign-in/code", { code: recovery[0]! })).status).toBe(401);
    // Off again, with a code from the app.
    clock.advance(MINUTE);
    const off = await c.post("/console/account/second-factor/off", { code: code(secret, clock.now()) });
    expect(off.status).toBe(303);
    expect((await c.get("/console/account/second-factor")).text).toContain("Turn the second factor on");
  });

  it("lets an owner ask it of every member: one without it is sent to set it up", async () => {
    const key = await createKey(stack.keystore, { kind: "classify" });
    const owner = await signedIn("owner", key.workspaceId);
    const viewer = await signedIn("viewer", key.workspaceId);
    await owner.c.get(`/console/w/${key.workspaceId}/members`);
    // Not before the owner has one: they would shut themselves out.
    const early = await owner.c.post(`/console/w/${key.workspaceId}/members/second-factor`, {
      required: "yes",
    });
    expect(early.status).toBe(409);
    const own = keyOf((await owner.c.get("/console/account/second-factor")).text);
    expect((await owner.c.post("/console/account/second-factor", { code: code(own) })).status).toBe(200);
    await owner.c.get(`/console/w/${key.workspaceId}/members`);
    const set = await owner.c.post(`/console/w/${key.workspaceId}/members/second-factor`, {
      required: "yes",
    });
    expect(set.status).toBe(303);
    expect((await viewer.c.get(`/console/w/${key.workspaceId}/members/second-factor`)).status).toBe(404);
    const refused = await viewer.c.get(`/console/w/${key.workspaceId}/overview`);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("A second factor is needed");
    expect(refused.text).toContain('href="/console/account/second-factor"');
    // A viewer cannot change it either.
    await viewer.c.get("/console/account");
    expect((await viewer.c.post(`/console/w/${key.workspaceId}/members/second-factor`, {})).status).toBe(403);
    const audit = await owner.c.get(`/console/w/${key.workspaceId}/audit`);
    expect(audit.text).toContain("workspace.second-factor");
    expect(audit.text).toContain("secondFactor not required → required");
    expect(audit.text).not.toMatch(/console\.[a-z-]+\.[a-z]/);
    // Once the viewer has one, the workspace opens.
    const secret = keyOf((await viewer.c.get("/console/account/second-factor")).text);
    expect((await viewer.c.post("/console/account/second-factor", { code: code(secret) })).status).toBe(200);
    expect((await viewer.c.get(`/console/w/${key.workspaceId}/overview`)).status).toBe(200);
  });
});
