import { ReportStore } from "@sift/feedback";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createKey, startStack, type Stack } from "@sift/testkit";
import { ManualClock, MINUTE } from "@sift/runtime";
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
    console: { signInPerAccount: 5, signInAccountBurst: 5, sessionIdleMs: 30 * MINUTE },
    trustProxy: 1,
  });
  ws = await createKey(stack.keystore, { kind: "challenge" });
  other = await createKey(stack.keystore, { kind: "classify" });
});
afterAll(() => stack.stop());

/** This file's client address: it moves its clock (see ConsoleClient). */
const client = () => new ConsoleClient(stack.gatewayUrl, "203.0.113.30");

let users = 0;
/** A new member of `ws` for one test: this stack allows five sign-ins a minute per account. */
const member = async (role: "owner" | "viewer"): Promise<string> => {
  const email = `${role}${++users}-${process.pid}@example.com`;
  await addUser(stack, email, { roles: { [ws.workspaceId]: role } });
  return email;
};

describe("the console through the gateway", () => {
  it("serves pages with a self-only CSP and its assets from Sift itself", async () => {
    const page = await client().get("/console/sign-in");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/^default-src 'self';/);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.text).not.toMatch(/<style|\sstyle=/);
    const htmx = await client().get("/console/assets/htmx.min.js");
    expect(htmx.status).toBe(200);
    expect(htmx.headers.get("content-type")).toMatch(/javascript/);
    expect(htmx.text).toContain('version:"2.');
    expect((await client().get("/console/assets/console.css")).headers.get("content-type")).toMatch(
      /text\/css/,
    );
    expect((await client().get("/console/assets/nope.js")).status).toBe(404);
    // An icon of its own (browsers then ask for it, not /favicon.ico), and the product named at sign-in.
    const icon = await client().get("/console/assets/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    const signIn = await client().get("/console/sign-in");
    expect(signIn.text).toContain('<link rel="icon" href="/console/assets/favicon.svg"');
    expect(signIn.text).toContain("<h1>Sign in to Sift</h1>");
  });

  it("sends a visitor without a session to sign in, and back to the page after", async () => {
    const c = client();
    const path = `/console/w/${ws.workspaceId}/sites?sort=name`;
    const page = await c.get(path);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`/console/sign-in?next=${encodeURIComponent(path)}`);
    const form = await c.get(page.headers.get("location")!);
    expect(form.text).toContain(`name="next" value="/console/w/${ws.workspaceId}/sites?sort=name"`);
    const signedIn = await c.post("/console/sign-in", {
      email: await member("owner"),
      password: PASSWORD,
      next: path,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(path);
    // Only the console's own pages: anything else goes to the start page.
    const other = client();
    await other.get("/console/sign-in?next=https%3A%2F%2Fevil.example%2F");
    const elsewhere = await other.post("/console/sign-in", {
      email: await member("owner"),
      password: PASSWORD,
      next: "//evil.example/console/",
    });
    expect(elsewhere.headers.get("location")).toBe("/console/");
  });

  it("keeps a form sent after the session ended: sign in, then it is sent again only when asked", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    const lists = `/console/w/${ws.workspaceId}/lists`;
    await c.get(lists);
    const csrf = c.csrf;
    const other = client();
    await other.signIn(email);
    await other.get("/console/account");
    await other.post("/console/sign-out-everywhere", {});
    const value = `kept-${process.pid}.example`;
    const sent = await c.request(`${lists}/add`, {
      method: "POST",
      fields: { _csrf: csrf, kind: "block", type: "domain", value },
      headers: { referer: `${stack.gatewayUrl}${lists}` },
    });
    expect(sent.status).toBe(401);
    expect(sent.text).toContain(`Add ${value} to the block list`);
    expect(sent.text).not.toContain(csrf);
    expect(await new ReportStore({ redis: stack.redis }).lists(ws.workspaceId)).not.toContainEqual(
      expect.objectContaining({ value }),
    );
    const resume = /name="resume" value="([^"]*)"/.exec(sent.text)![1]!.replaceAll("&amp;", "&");
    const after = await c.post("/console/sign-in", {
      email,
      password: PASSWORD,
      action: `${lists}/add`,
      resume,
      next: lists,
    });
    expect(after.status).toBe(200);
    expect(after.text).toContain("Finish what you were doing");
    expect(await new ReportStore({ redis: stack.redis }).lists(ws.workspaceId)).not.toContainEqual(
      expect.objectContaining({ value }),
    );
    // The kept fields and the new session's token are in the form: sending it adds the entry.
    expect(after.text).toContain(`name="value" value="${value}"`);
    const done = await c.post(`${lists}/add`, { kind: "block", type: "domain", value });
    expect(done.status).toBe(303);
    expect(await new ReportStore({ redis: stack.redis }).lists(ws.workspaceId)).toContainEqual(
      expect.objectContaining({ value }),
    );
  });

  it("signs in with an HttpOnly SameSite=Lax cookie whose token is stored only as its hash", async () => {
    const c = client();
    await c.get("/console/sign-in");
    const res = await c.request("/console/sign-in", {
      method: "POST",
      fields: { _csrf: c.csrf, email: (await member("owner")).toUpperCase(), password: PASSWORD },
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((l) => l.startsWith("sift_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/console/);
    expect(cookie).not.toMatch(/Secure/);
    const token = c.cookies.get("sift_session")!;
    const keys = await stack.redis.keys("sift:console:session:*");
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key).not.toContain(token);
      expect(JSON.stringify(await stack.redis.hgetall(key))).not.toContain(token);
    }
    expect((await c.get("/console/")).status).toBe(200);
  });

  it("marks the cookie Secure when the request came over TLS", async () => {
    const c = client();
    await c.get("/console/sign-in");
    const res = await c.request("/console/sign-in", {
      method: "POST",
      headers: { "x-forwarded-proto": "https" },
      fields: { _csrf: c.csrf, email: await member("viewer"), password: PASSWORD },
    });
    expect(res.headers.getSetCookie().find((l) => l.startsWith("sift_session="))).toMatch(/; Secure/);
  });

  it("gives the same answer for an unknown e-mail and a wrong password, in comparable time", async () => {
    const known = await member("owner");
    const timed = async (email: string) => {
      const c = client();
      await c.get("/console/sign-in");
      const started = performance.now();
      const page = await c.post("/console/sign-in", { email, password: "wrong password!!" });
      return { page, ms: performance.now() - started };
    };
    const unknown = [];
    const wrong = [];
    // Seven of each, interleaved, compared by their medians: one stall of a loaded machine moves
    // neither median.
    for (let i = 0; i < 7; i++) {
      unknown.push(await timed(`nobody${i}@example.com`));
      wrong.push(await timed(known));
    }
    const message = (p: { page: { text: string } }) => /role="alert">([^<]*)</.exec(p.page.text)?.[1];
    expect(unknown[0]!.page.status).toBe(401);
    expect(wrong[0]!.page.status).toBe(401);
    expect(message(unknown[0]!)).toBe(message(wrong[0]!));
    const median = (xs: Array<{ ms: number }>) => xs.map((x) => x.ms).sort((a, b) => a - b)[3]!;
    // Both pay one Argon2id check (19 MiB): an unknown e-mail is not answered early.
    expect(median(unknown)).toBeGreaterThan(median(wrong) / 3);
  });

  it("throttles sign-in per account, known or not, with a 429 and Retry-After", async () => {
    for (const email of [`throttled-${process.pid}@example.com`, await member("viewer")]) {
      const c = client();
      await c.get("/console/sign-in");
      const statuses = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await c.post("/console/sign-in", { email, password: "nope" })).status);
      expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
      const last = await c.post("/console/sign-in", { email, password: PASSWORD });
      expect(last.status).toBe(429);
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });

  it("rotates the session at sign-in and ends it at sign-out", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    const first = c.cookies.get("sift_session")!;
    await c.get("/console/");
    await c.post("/console/sign-in", { email, password: PASSWORD });
    const second = c.cookies.get("sift_session")!;
    expect(second).not.toBe(first);
    const stale = new ConsoleClient(stack.gatewayUrl);
    stale.cookies.set("sift_session", first);
    expect((await stale.get("/console/")).status).toBe(303);
    await c.get("/console/");
    expect((await c.post("/console/sign-out", {})).status).toBe(303);
    const after = new ConsoleClient(stack.gatewayUrl);
    after.cookies.set("sift_session", second);
    expect((await after.get("/console/")).status).toBe(303);
  });

  it("ends a session left idle past its idle lifetime", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    expect((await c.get("/console/")).status).toBe(200);
    clock.advance(31 * MINUTE);
    expect((await c.get("/console/")).status).toBe(303);
  });

  it("refuses a form without the CSRF token, or sent from another site, with 403", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    await c.get(`/console/w/${ws.workspaceId}/sites`);
    const path = `/console/w/${ws.workspaceId}/lists/add`;
    const entry = { kind: "block", type: "domain", value: "csrf.example" };
    expect((await c.post(path, { ...entry, _csrf: "forged" })).status).toBe(403);
    expect((await c.post(path, entry, { origin: "https://evil.example" })).status).toBe(403);
    expect((await c.post(path, entry, { "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(await stack.redis.keys("*csrf.example*")).toEqual([]);
    expect((await c.post(path, entry, { "sec-fetch-site": "same-origin" })).status).toBe(303);
  });

  it("lets a viewer read but change nothing, and answers 404 for another workspace and its ids", async () => {
    const c = client();
    await c.signIn(await member("viewer"));
    const sites = await c.get(`/console/w/${ws.workspaceId}/sites`);
    expect(sites.status).toBe(200);
    expect(sites.text).toContain(ws.configId);
    expect(sites.text).not.toContain("Create configuration");
    expect((await c.post(`/console/w/${ws.workspaceId}/sites`, { kind: "classify" })).status).toBe(403);
    expect(
      (await c.post(`/console/w/${ws.workspaceId}/sites/${ws.configId}/rotate`, { confirm: "yes" })).status,
    ).toBe(403);
    expect(
      (
        await c.post(`/console/w/${ws.workspaceId}/lists/add`, {
          kind: "block",
          type: "domain",
          value: "v.example",
        })
      ).status,
    ).toBe(403);
    expect(await stack.keystore.resolve(ws.secretKey)).not.toBeNull();
    for (const path of [`/console/w/${other.workspaceId}/sites`, `/console/w/${other.workspaceId}/lists`]) {
      const page = await c.get(path);
      expect(page.status).toBe(404);
      expect(page.text).not.toContain(other.configId);
    }
    const owner = client();
    await owner.signIn(await member("owner"));
    await owner.get(`/console/w/${ws.workspaceId}/sites`);
    const foreign = await owner.get(`/console/w/${ws.workspaceId}/sites/${other.configId}`);
    expect(foreign.status).toBe(404);
    expect(
      (await owner.post(`/console/w/${ws.workspaceId}/sites/${other.configId}/rotate`, { confirm: "yes" }))
        .status,
    ).toBe(404);
    expect(await stack.keystore.resolve(other.secretKey)).not.toBeNull();
  });

  it("creates and rotates a configuration, shows each secret once, and records both in the audit log", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    await c.get(`/console/w/${ws.workspaceId}/sites`);
    const posted = await c.post(`/console/w/${ws.workspaceId}/sites`, { kind: "classify" });
    expect(posted.status).toBe(303);
    const created = await c.get(posted.headers.get("location")!);
    const secret = /id="secret">(sk_[\w-]+)</.exec(created.text)![1]!;
    const record = await stack.keystore.resolve(secret);
    expect(record).toMatchObject({ workspaceId: ws.workspaceId, kind: "classify" });
    const detail = await c.get(`/console/w/${ws.workspaceId}/sites/${record!.configId}`);
    expect(detail.text).not.toContain(secret);
    // Without confirm=yes the rotate only asks (200, a form that posts confirm=yes); the secret stands.
    const asked = await c.post(`/console/w/${ws.workspaceId}/sites/${record!.configId}/rotate`, {});
    expect(asked.status).toBe(200);
    expect(asked.text).toContain('name="confirm" value="yes"');
    expect(await stack.keystore.resolve(secret)).not.toBeNull();
    const rotate = await c.post(`/console/w/${ws.workspaceId}/sites/${record!.configId}/rotate`, {
      confirm: "yes",
    });
    const rotated = await c.get(rotate.headers.get("location")!);
    const next = /id="secret">(sk_[\w-]+)</.exec(rotated.text)![1]!;
    expect(await stack.keystore.resolve(secret)).toBeNull();
    expect(await stack.keystore.resolve(next)).not.toBeNull();
    const audit = await c.get(`/console/w/${ws.workspaceId}/audit`);
    expect(audit.text).toContain("configuration.create");
    expect(audit.text).toContain("configuration.rotate");
    expect(audit.text).toContain(email);
  });

  it("sets a challenge's difficulty, life and adaptive mode, refusing values out of bounds", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    const path = `/console/w/${ws.workspaceId}/sites/${ws.configId}`;
    await c.get(path);
    expect((await c.post(path, { difficulty: "99", life: "60" })).status).toBe(400);
    expect((await c.post(path, { difficulty: "10", life: "120", adaptive: "on" })).status).toBe(303);
    expect(await stack.keystore.getConfig(ws.configId)).toMatchObject({
      difficulty: 10,
      challengeTtlMs: 120_000,
      adaptive: true,
    });
  });

  it("adds and removes list entries through the report store's lists, and shows usage", async () => {
    const c = client();
    const email = await member("owner");
    await c.signIn(email);
    const lists = `/console/w/${ws.workspaceId}/lists`;
    await c.get(lists);
    expect(
      (await c.post(`${lists}/add`, { kind: "block", type: "email", value: "Spam@Example.com" })).status,
    ).toBe(303);
    expect((await c.get(lists)).text).toContain("spam@example.com");
    expect(
      (await c.post(`${lists}/add`, { kind: "block", type: "domain", value: "not a domain" })).status,
    ).toBe(400);
    expect(
      (await c.post(`${lists}/remove`, { kind: "block", type: "email", value: "spam@example.com" })).status,
    ).toBe(303);
    expect((await c.get(lists)).text).not.toContain("spam@example.com");
    const usage = await c.get(`/console/w/${ws.workspaceId}/usage`);
    expect(usage.status).toBe(200);
    expect(usage.text).toContain("Under the allowance");
  });

  it("lets an operator open every workspace and create one, and no one else create one", async () => {
    const operator = `operator-${process.pid}@example.com`;
    await addUser(stack, operator, { operator: true });
    const c = client();
    await c.signIn(operator);
    // Other files' workspaces share this Redis: search for the one wanted, past any first page.
    const home = await c.get(`/console/?q=${other.workspaceId}`);
    expect(home.text).toContain(`/console/w/${other.workspaceId}/sites`);
    expect((await c.get(`/console/w/${other.workspaceId}/sites`)).text).toContain(other.configId);
    const created = await c.post("/console/workspaces", { name: "Made <in> the console" });
    expect(created.status).toBe(303);
    const id = /\/console\/w\/([\w-]+)\/sites/.exec(created.headers.get("location")!)![1]!;
    expect(await stack.keystore.getWorkspace(id)).toMatchObject({
      name: "Made <in> the console",
      plan: "free",
    });
    expect((await c.get(`/console/w/${id}/sites`)).text).toContain("Made &lt;in&gt; the console");
    const owner = client();
    await owner.signIn(await member("owner"));
    await owner.get("/console/");
    expect((await owner.post("/console/workspaces", { name: "nope" })).status).toBe(403);
  });

  it("lets an operator delete a site once confirmed with the form's token, and no owner delete one", async () => {
    const doomed = await createKey(stack.keystore, { kind: "classify" });
    const path = `/console/w/${doomed.workspaceId}/delete`;
    const ownerEmail = `doomed-owner-${process.pid}@example.com`;
    await addUser(stack, ownerEmail, { roles: { [doomed.workspaceId]: "owner" } });
    const owner = client();
    await owner.signIn(ownerEmail);
    await owner.get(`/console/w/${doomed.workspaceId}/settings`);
    expect((await owner.get(path)).status).toBe(403);
    // A checked form from the site's own owner: the operation refuses (an operator's change).
    expect((await owner.post(path, { confirm: "yes" })).status).toBe(403);
    const operator = `deleting-operator-${process.pid}@example.com`;
    await addUser(stack, operator, { operator: true });
    const c = client();
    await c.signIn(operator);
    const page = await c.get(path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="confirm" type="checkbox" value="yes" required');
    expect((await c.post(path, { confirm: "yes", _csrf: "forged" })).status).toBe(403);
    expect((await c.post(path, {})).status).toBe(400);
    expect(await stack.keystore.getWorkspace(doomed.workspaceId)).not.toBeNull();
    const deleted = await c.post(path, { confirm: "yes" });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/console/");
    expect(await stack.keystore.getWorkspace(doomed.workspaceId)).toBeNull();
    expect(await stack.keystore.resolve(doomed.secretKey)).toBeNull();
    const { data } = await stack.audit.page({ workspaceId: doomed.workspaceId, limit: 10 });
    expect(data.map((e) => [e.action, e.actor])).toEqual([
      ["workspace.delete", { type: "user", id: operator }],
    ]);
  });
});
