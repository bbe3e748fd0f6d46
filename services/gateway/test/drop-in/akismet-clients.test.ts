import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { AkismetClient } from "akismet-api";
import * as akismet from "akismet";
import { Author, Blog, CheckResult, Client as CedxClient, Comment } from "@cedx/akismet";
import { createKey, startScoringStack, type ScoringStack, type Stack } from "@sift/testkit";
import { CAMPAIGN, CLEAN, localhostSubdomains, RESEND, SPAM, within5s } from "./helpers.ts";

/**
 * Akismet's API on the gateway, driven by three Akismet clients from npm, unchanged and only
 * configured: akismet-api 6.0.0 and akismet 2.0.7 put the key in the host name
 * (`KEY.localhost:PORT`, resolved by the system), @cedx/akismet 16.2.1 sends it as `api_key`.
 * One stack with a model worker for the file; each client its own workspace.
 */
let scoring: ScoringStack;
let stack: Stack;
let port: string;

/** The host-name clients need `KEY.localhost` to resolve (helpers.ts); @cedx/akismet does not. */
const hostNames = await localhostSubdomains();

beforeAll(async () => {
  scoring = await startScoringStack({ redisUrl: inject("redisUrl") });
  stack = scoring.stack;
  port = new URL(stack.gatewayUrl).port;
});
afterAll(() => scoring?.stop());

const BLOG = "http://blog.example/";

const workspace = async () => {
  const key = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 100_000, burst: 100_000 });
  return key;
};
const used = async (workspaceId: string) =>
  (await stack.usage.status((await stack.keystore.getWorkspace(workspaceId))!)).used30d;

/** One client's calls, whatever its own API looks like. */
interface Driver {
  verifyKey(): Promise<boolean>;
  check(comment: {
    author: string;
    email: string;
    content: string;
    role?: string;
    isTest?: boolean;
  }): Promise<boolean>;
  submitSpam(comment: { author: string; email: string; content: string }): Promise<void>;
}

const akismetApi = (key: string): Driver => {
  const client = new AkismetClient({ key, blog: BLOG, host: `localhost:${port}`, protocol: "http" });
  const comment = (c: Parameters<Driver["check"]>[0]) => ({
    user_ip: "203.0.113.7",
    name: c.author,
    email: c.email,
    content: c.content,
    ...(c.role ? { role: c.role } : {}),
    ...(c.isTest ? { isTest: true } : {}),
  });
  return {
    verifyKey: () => client.verifyKey(),
    check: (c) => client.checkSpam(comment(c)),
    submitSpam: (c) => client.submitSpam(comment(c)),
  };
};

const akismet207 = (apiKey: string): Driver => {
  const client = akismet.client({ apiKey, blog: BLOG, host: "localhost", port: Number(port) });
  const verifyKey = promisify<boolean>((cb) => client.verifyKey((err, valid) => cb(err, valid)));
  const comment = (c: Parameters<Driver["check"]>[0]) => ({
    user_ip: "203.0.113.7",
    comment_author: c.author,
    comment_author_email: c.email,
    comment_content: c.content,
    ...(c.role ? { user_role: c.role } : {}),
    ...(c.isTest ? { is_test: 1 } : {}),
  });
  return {
    verifyKey: () => verifyKey(),
    check: (c) =>
      new Promise((resolve, reject) =>
        client.checkComment(comment(c), (err, spam) => (err ? reject(err) : resolve(spam))),
      ),
    submitSpam: (c) =>
      new Promise((resolve, reject) =>
        client.submitSpam(comment(c), (err) => (err ? reject(err) : resolve())),
      ),
  };
};

const cedx = (apiKey: string): Driver => {
  const made = (isTest: boolean) =>
    new CedxClient(apiKey, new Blog({ url: BLOG }), {
      baseUrl: stack.gatewayUrl,
      userAgent: "Sift tests",
      isTest,
    });
  const client = made(false);
  const testClient = made(true);
  const comment = (c: Parameters<Driver["check"]>[0]) =>
    new Comment({
      author: new Author({
        ipAddress: "203.0.113.7",
        name: c.author,
        email: c.email,
        ...(c.role ? { role: c.role } : {}),
      }),
      content: c.content,
    });
  return {
    verifyKey: () => client.verifyKey(),
    check: async (c) => {
      const result = await (c.isTest ? testClient : client).checkComment(comment(c));
      return result !== CheckResult.ham;
    },
    submitSpam: (c) => client.submitSpam(comment(c)),
  };
};

describe.each([
  ["akismet-api 6.0.0 (key in the host name)", akismetApi, hostNames],
  ["akismet 2.0.7 (key in the host name)", akismet207, hostNames],
  ["@cedx/akismet 16.2.1 (key as api_key)", cedx, true],
])("%s", (_name, driver, runs) => {
  if (!runs) return void it.skip("needs KEY.localhost to resolve (apt-get install libnss-myhostname)");
  it("verifies its key, and answers a clean and a spam comment, each counted once", async () => {
    const site = await workspace();
    const client = driver(site.secretKey);
    expect(await client.verifyKey()).toBe(true);
    expect(await client.check(CLEAN)).toBe(false);
    expect(await client.check(SPAM)).toBe(true);
    expect(await used(site.workspaceId)).toBe(2);
    // The classify path's verdict log has both, as for a direct /classify.
    await expect
      .poll(async () => (await stack.verdicts.list(site.workspaceId, { limit: 10 })).verdicts.length)
      .toBe(2);
  });

  it("answers Akismet's test triggers without counting them", async () => {
    const site = await workspace();
    const client = driver(site.secretKey);
    expect(await client.check({ ...CLEAN, author: "viagra-test-123" })).toBe(true);
    expect(await client.check({ ...CLEAN, email: "akismet-guaranteed-spam@example.com" })).toBe(true);
    expect(await client.check({ ...SPAM, role: "administrator" })).toBe(false);
    // is_test=1: Sift's test mode (spam only with vendor-test-spam), never counted.
    expect(await client.check({ ...CLEAN, isTest: true })).toBe(false);
    expect(await client.check({ ...CLEAN, content: "vendor-test-spam", isTest: true })).toBe(true);
    expect(await used(site.workspaceId)).toBe(0);
  });

  it("turns a reported spam's near-duplicate into spam within 5 s", async () => {
    const site = await workspace();
    const client = driver(site.secretKey);
    expect(await client.check(RESEND)).toBe(false);
    await client.submitSpam(CAMPAIGN);
    await within5s(() => client.check(RESEND));
  });

  it("refuses a wrong key", async () => {
    // Another key of the same shape: valid-looking, unknown.
    const site = await workspace();
    const wrong = `${site.secretKey.slice(0, -4)}${site.secretKey.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    const client = driver(wrong);
    expect(await client.verifyKey()).toBe(false);
    const check = client.check(SPAM);
    // akismet 2.0.7 reports every failure as "not spam"; the others throw.
    if (driver === akismet207) expect(await check).toBe(false);
    else await expect(check).rejects.toThrow(/invalid|Invalid secret key/i);
    expect(await used(site.workspaceId)).toBe(0);
  });
});

describe("X-akismet-pro-tip", () => {
  it("never says discard: @cedx/akismet reads even a blatant pitch as spam to review, not pervasive spam", async () => {
    const site = await workspace();
    const client = new CedxClient(site.secretKey, new Blog({ url: BLOG }), { baseUrl: stack.gatewayUrl });
    const comment = (c: typeof CLEAN) =>
      new Comment({ author: new Author({ name: c.author, email: c.email }), content: c.content });
    expect(await client.checkComment(comment(SPAM))).toBe(CheckResult.spam);
    expect(await client.checkComment(comment(CLEAN))).toBe(CheckResult.ham);
  });
});
