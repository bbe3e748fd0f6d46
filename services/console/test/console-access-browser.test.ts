import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { CHROMIUM_ARGS, CHROMIUM_PATH, createKey, startStack, type Stack } from "@sift/testkit";
import { AccountStore } from "@sift/console/accounts";
import { addUser, PASSWORD } from "./helpers.ts";
import { axe, signIn as signInPage, watched as watchedPage, type Watched } from "./browser.ts";

let stack: Stack;
let browser: Browser;
let ws: Awaited<ReturnType<typeof createKey>>;
const owner = `access-owner-${process.pid}@example.com`;
/** This file's stack allows five sign-in attempts a minute per account, as main.ts does by default. */
const PER_ACCOUNT = 5;

beforeAll(async () => {
  if (!inject("browserTests")) return;
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    console: { signInPerAccount: PER_ACCOUNT, signInAccountBurst: PER_ACCOUNT },
    trustProxy: 1,
  });
  ws = await createKey(stack.keystore, { kind: "challenge" });
  await addUser(stack, owner, { roles: { [ws.workspaceId]: "owner" } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/**
 * A new watched page. This file's own client address: the sign-in throttle's per-address bucket
 * is shared, through Redis, with the other files' stacks, one of which moves its clock ahead.
 */
const watched = (options: { userAgent?: string } = {}): Promise<Watched> =>
  watchedPage(browser, { ...options, address: "203.0.113.28" });

const signIn = async (session: Watched, email: string): Promise<Watched> => {
  await signInPage(session.page, stack.gatewayUrl, email);
  return session;
};

/** Creates an invitation on the members page and returns the link shown once. */
const invite = async (page: Page, email: string, role: string): Promise<string> => {
  await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/members`);
  // The field's type=email would stop a hostile address in the browser; the server must cope anyway.
  await page.$eval("#invite-email", (input) => input.setAttribute("type", "text"));
  await page.fill("#invite-email", email);
  await page.selectOption("#invite-role", role);
  await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/members/invite") && r.request().method() === "POST"),
    page.click("text=Create invitation link"),
  ]);
  await page.waitForSelector("#invite-link");
  return (await page.textContent("#invite-link"))!.trim();
};

describe.skipIf(!inject("browserTests"))("members, invitations and sessions in Chromium", () => {
  let ownerSession: Watched;
  beforeAll(async () => {
    ownerSession = await signIn(await watched(), owner);
  });
  afterAll(() => ownerSession?.context.close());

  it("invites an e-mail whose invitee, in another browser, chooses a password and lands signed in with the role", async () => {
    const { page, context, problems } = ownerSession;
    const invitee = `access-invitee-${process.pid}@example.com`;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.gatewayUrl });
    const link = await invite(page, invitee, "editor");
    expect(link).toMatch(new RegExp(`^${stack.gatewayUrl}/console/invite/[\\w-]{43}$`));
    await page.click("button[data-copy=invite-link]");
    await page.waitForSelector("text=Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    const violations = await axe(page);

    const guest = await watched();
    await guest.page.goto(link);
    expect(await guest.page.textContent("main")).toContain(invitee);
    violations.push(...(await axe(guest.page)));
    await guest.page.fill("#password", PASSWORD);
    await guest.page.fill("#repeat", PASSWORD);
    await Promise.all([
      guest.page.waitForURL(`**/console/w/${ws.workspaceId}/sites`),
      guest.page.click("button[type=submit]"),
    ]);
    expect(await guest.page.textContent(".who")).toBe(invitee);
    await guest.page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/members`);
    const row = guest.page.locator("tr", { hasText: invitee });
    expect(await row.locator("td").nth(1).textContent()).toBe("editor");
    // An editor sees the members but no form to change them.
    expect(await guest.page.$("#invite-email")).toBeNull();
    // The link worked once.
    const again = await guest.page.goto(link);
    expect(again!.status()).toBe(410);
    violations.push(...(await axe(guest.page)));
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/members`);
    violations.push(...(await axe(page)));
    expect(violations).toEqual([]);
    expect([...problems, ...guest.problems]).toEqual([]);
    await guest.context.close();
  });

  it("lets an existing account sign in on the invitation's page and join", async () => {
    const { page, problems } = ownerSession;
    const existing = `access-existing-${process.pid}@example.com`;
    await addUser(stack, existing);
    const link = await invite(page, existing, "viewer");
    const guest = await watched();
    await guest.page.goto(link);
    expect(await guest.page.textContent("main")).toContain("has an account: sign in to join");
    const violations = await axe(guest.page);
    await guest.page.fill("#password", PASSWORD);
    await Promise.all([
      guest.page.waitForURL(`**/console/w/${ws.workspaceId}/sites`),
      guest.page.click("button[type=submit]"),
    ]);
    expect(await guest.page.textContent(".who")).toBe(existing);
    // Signed in as someone else, a link for another e-mail says so and offers to sign out.
    const other = await invite(page, `access-not-me-${process.pid}@example.com`, "viewer");
    await guest.page.goto(other);
    expect(await guest.page.textContent("[role=alert]")).toContain(`You are signed in as ${existing}`);
    violations.push(...(await axe(guest.page)));
    expect(violations).toEqual([]);
    expect([...problems, ...guest.problems]).toEqual([]);
    await guest.context.close();
  });

  it("shows a hostile invited e-mail as text, in the list and on the invitation's page", async () => {
    const { page, problems } = ownerSession;
    const hostile = `"><script>alert(1)</script>@example.com`;
    const link = await invite(page, hostile, "viewer");
    expect(await page.textContent("main strong")).toBe(hostile);
    await page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/members`);
    expect(await page.$$eval("td.value", (cells) => cells.map((c) => c.textContent))).toContain(hostile);
    expect(await page.$$("main script, main img")).toHaveLength(0);
    const guest = await watched();
    await guest.page.goto(link);
    expect(await guest.page.inputValue("#email")).toBe(hostile);
    expect(await guest.page.$$("main script")).toHaveLength(0);
    await guest.page.waitForTimeout(200);
    expect([...problems, ...guest.problems]).toEqual([]);
    await guest.context.close();
  });

  it("revokes another browser's session from the sessions page; that browser's next page is sign-in", async () => {
    const email = `access-sessions-${process.pid}@example.com`;
    await addUser(stack, email, { roles: { [ws.workspaceId]: "viewer" } });
    const hostileAgent = `<script>alert("ua")</script> "quoted" agent`;
    const a = await signIn(await watched(), email);
    const b = await signIn(await watched({ userAgent: hostileAgent }), email);
    await a.page.goto(`${stack.gatewayUrl}/console/account`);
    const rows = a.page.locator("tbody tr");
    expect(await rows.count()).toBe(2);
    const other = a.page.locator("tbody tr", { hasNotText: "(this session)" });
    expect(await other.locator("td.value").textContent()).toBe(hostileAgent);
    expect(await a.page.$$("main script")).toHaveLength(0);
    const violations = await axe(a.page);
    await Promise.all([
      a.page.waitForResponse((r) => r.url().endsWith("/sessions/revoke")),
      other.locator("button").click(),
    ]);
    // The form is boosted by htmx: the answer is swapped in, not navigated to.
    await a.page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 1);
    await b.page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    // Sign-in, which will bring B back to the page it asked for (issue 41).
    expect(b.page.url()).toBe(
      `${stack.gatewayUrl}/console/sign-in?next=${encodeURIComponent(`/console/w/${ws.workspaceId}/sites`)}`,
    );
    expect(await b.page.$("#password")).not.toBeNull();
    // A's own session still works.
    await a.page.goto(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    expect(a.page.url()).toBe(`${stack.gatewayUrl}/console/w/${ws.workspaceId}/sites`);
    expect(violations).toEqual([]);
    expect([...a.problems, ...b.problems]).toEqual([]);
    await a.context.close();
    await b.context.close();
  });

  it("throttles sign-in: past the per-account limit the page says so with a 429", async () => {
    const fresh = `access-throttled-${process.pid}@example.com`;
    await new AccountStore({ redis: stack.redis, clock: stack.clock }).addUser({
      email: fresh,
      password: PASSWORD,
      operator: false,
    });
    const { context, page, problems } = await watched();
    const attempt = async (password: string) => {
      await page.goto(`${stack.gatewayUrl}/console/sign-in`);
      await page.fill("#email", fresh);
      await page.fill("#password", password);
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/console/sign-in") && r.request().method() === "POST"),
        page.click("button[type=submit]"),
      ]);
      await page.waitForLoadState();
      return answer.status();
    };
    const statuses = [];
    for (let i = 0; i < PER_ACCOUNT; i++) statuses.push(await attempt("a wrong password"));
    expect(statuses).toEqual(Array(PER_ACCOUNT).fill(401));
    // Even the right password is refused now.
    expect(await attempt(PASSWORD)).toBe(429);
    expect(await page.textContent("[role=alert]")).toMatch(/^Too many attempts\. Try again in \d+ s\.$/);
    expect(page.url()).toBe(`${stack.gatewayUrl}/console/sign-in`);
    expect(await axe(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
