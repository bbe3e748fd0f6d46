import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock, DAY, silentLogger } from "@sift/runtime";
import { logLayout, type Verdict } from "@sift/verdicts";
import {
  createKey,
  post,
  solveChallenge,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";
import { enforceRetention } from "../src/jobs/log-retention.ts";

/**
 * The verdict log's write path through the real gateway, classify, verify and a model worker,
 * on a Redis and NATS of this file's own: "nothing recorded" is read off every log key in Redis.
 */
let redis: TestServer;
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker | undefined;
const clock = new ManualClock(Date.UTC(2026, 10, 2, 12));

beforeAll(async () => {
  [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
  // No key cache: settings changed by a test reach the next call at once.
  stack = await startStack({ redisUrl: redis.url, natsUrl: nats.url, clock, keyCacheMs: 0 });
  worker = await startModelWorker(nats.url);
});
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await Promise.all([nats?.stop(), redis?.stop()]);
});

const CONTENT = {
  name: "Ann",
  email: "ann@example.com",
  message: "Call +1 (555) 123-4567 or see https://cheap-seo.example/offer for a free SEO audit",
};

const classify = (secretKey: string, content: unknown = CONTENT, query = "") =>
  post(
    `${stack.gatewayUrl}/classify${query}`,
    { content, model: "spam-standard" },
    { authorization: `Bearer ${secretKey}` },
  );

const verify = (secretKey: string, solution: string) =>
  post(`${stack.gatewayUrl}/verify`, { secretKey, solution });

const classifyKey = async (changes: Parameters<Stack["keystore"]["updateWorkspace"]>[1] = {}) => {
  const key = await createKey(stack.keystore, { kind: "classify", allowance: 100_000 });
  await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 100_000, burst: 100_000, ...changes });
  return key;
};

/** The workspace's log once it holds `count` entries (the recorder writes within 250 ms). */
const entries = async (workspaceId: string, count: number): Promise<Verdict[]> => {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const page = await stack.verdicts.list(workspaceId, { limit: 200 });
    if (page.verdicts.length >= count || Date.now() > deadline) return page.verdicts;
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Every workspace that has any log key in this file's Redis. */
const loggedWorkspaces = async (): Promise<Set<string>> => {
  const keys = await stack.redis.keys("sift:vlog*");
  return new Set(keys.map((k) => /\{([^}]+)\}/.exec(k)![1]!));
};

/** Past the recorder's flush, so anything that was going to be written is. */
const settle = () => new Promise((r) => setTimeout(r, 600));

describe("the verdict log's write path", () => {
  it("records a real key's classify verdict with its reasons, and answers without them", async () => {
    const key = await classifyKey();
    const reply = await classify(key.secretKey);
    expect(reply.status).toBe(200);
    expect(reply.json).not.toHaveProperty("reasons");
    const [verdict] = await entries(key.workspaceId, 1);
    const answer = reply.json as { label: string; score: number; model: string };
    expect(verdict).toMatchObject({
      operation: "classify",
      configId: key.configId,
      label: answer.label,
      score: answer.score,
      model: answer.model,
      time: clock.now(),
      review: "unreviewed",
    });
    expect(verdict!.reasons.length).toBeGreaterThan(0);
    expect(verdict!.fingerprint).toEqual(expect.any(String));
    // The default mode is redacted.
    expect(verdict!.content).toMatchObject({ mode: "redacted" });
  });

  it("stores the reasons as ?explain=1 answers them: sealed in full mode, without quoted words in the clear", async () => {
    type Reason = { signal: string; weight: number; field?: string; label: string };
    const full = await classifyKey({ logPrivacy: "full" });
    const given = ((await classify(full.secretKey, CONTENT, "?explain=1")).json as { reasons: Reason[] })
      .reasons;
    const [opened] = await entries(full.workspaceId, 1);
    expect(opened!.reasons).toEqual(given);
    // The answer's reasons quote the submission (its words, the link's site) ...
    expect(given.some((r) => r.signal === "word")).toBe(true);
    expect(given.some((r) => r.label.includes("cheap-seo"))).toBe(true);
    // ... which the log keeps in the clear by kind alone: same codes, weights and fields.
    const redacted = await classifyKey();
    expect((await classify(redacted.secretKey, CONTENT, "?explain=1")).status).toBe(200);
    const [kept] = await entries(redacted.workspaceId, 1);
    const shape = (reasons: unknown[]) =>
      (reasons as Reason[]).map(({ signal, weight, field }) => ({ signal, weight, field }));
    expect(shape(kept!.reasons)).toEqual(shape(given));
    const words = (kept!.reasons as Reason[]).filter((r) => r.signal === "word").map((r) => r.label);
    expect(new Set(words)).toEqual(new Set(["a word of the text"]));
    expect(JSON.stringify(kept!.reasons)).not.toMatch(/cheap-seo|“free”|“audit”/);
  });

  it("keeps the light reasons for a call that asked for none: the same kinds of piece, no quoted words, small weights' digits", async () => {
    type Reason = { signal: string; weight: number; field?: string; label: string };
    const key = await classifyKey({ logPrivacy: "full" });
    const given = ((await classify(key.secretKey, CONTENT, "?explain=1")).json as { reasons: Reason[] })
      .reasons;
    expect((await classify(key.secretKey)).status).toBe(200);
    // The test clock stands still: the two entries share a time, so their order is the ids' chance.
    const both = (await entries(key.workspaceId, 2)) as Array<{ reasons: Reason[] }>;
    const same = (r: Reason[]) => JSON.stringify(r) === JSON.stringify(given);
    expect(both.filter((e) => same(e.reasons))).toHaveLength(1);
    const light = both.find((e) => !same(e.reasons));
    expect(light!.reasons.length).toBeGreaterThan(0);
    // Every kind of piece the light reasons name is one the full reasons can name, and a form
    // signal (one feature, no n-grams) weighs what it weighs in the full reasons, to 1e-4.
    const kinds = new Set(["word", "link_site", "email_address", "form_layout", "text_shape", "link_count"]);
    for (const reason of light!.reasons) {
      expect(kinds.has(reason.signal) || /^[a-z_]+$/.test(reason.signal), reason.signal).toBe(true);
      expect(Math.round(reason.weight * 1e4) / 1e4).toBe(reason.weight);
      const full = given.find((g) => g.label === reason.label && g.field === reason.field);
      if (full && !kinds.has(reason.signal)) expect(reason.weight).toBeCloseTo(full.weight, 4);
    }
  });

  it("records nothing for the test key, refused calls, or a workspace whose retention is 0", async () => {
    const before = await loggedWorkspaces();
    expect((await classify("test")).status).toBe(200);
    expect((await verify("test", "anything")).status).toBe(200);
    const limited = await classifyKey({ rateLimit: 1, burst: 1 });
    expect((await classify(limited.secretKey)).status).toBe(200);
    expect((await classify(limited.secretKey)).status).toBe(429);
    const invalid = await classifyKey();
    expect((await classify(invalid.secretKey, { message: "" })).status).toBe(400);
    const off = await classifyKey({ logRetentionDays: 0 });
    expect((await classify(off.secretKey)).status).toBe(200);
    await settle();
    const after = await loggedWorkspaces();
    expect([...after].filter((ws) => !before.has(ws))).toEqual([limited.workspaceId]);
    expect(await entries(limited.workspaceId, 1)).toHaveLength(1);
  });

  it("records verify outcomes of a real key, accepted and refused, and counts the refused ones", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    const solution = await solveChallenge(stack.gatewayUrl, key.siteKey!);
    expect((await verify(key.secretKey, solution)).json).toEqual({ ok: true });
    // Entries of one millisecond have no order between them.
    clock.advance(1);
    const spent = await verify(key.secretKey, solution);
    expect(spent.json).toMatchObject({ ok: false });
    const found = await entries(key.workspaceId, 2);
    expect(found.map((v) => [v.operation, v.ok, v.message])).toEqual([
      ["verify", false, (spent.json as { message: string }).message],
      ["verify", true, undefined],
    ]);
    const counts = await stack.verdicts.counts(key.workspaceId, {
      bucket: "day",
      from: clock.now() - DAY,
      to: clock.now() + DAY,
    });
    expect(counts.reduce((n, b) => n + b.verify_failed, 0)).toBe(1);
  });

  it("stores exactly what each privacy mode says (read in Redis)", async () => {
    const raw = async (workspaceId: string) => {
      const [id] = await entries(workspaceId, 1).then((v) => v.map((x) => x.id));
      return (await stack.redis.hget(logLayout(workspaceId).records, id!))!;
    };
    const full = await classifyKey({ logPrivacy: "full" });
    const redacted = await classifyKey({ logPrivacy: "redacted" });
    const none = await classifyKey({ logPrivacy: "none" });
    for (const key of [full, redacted, none]) expect((await classify(key.secretKey)).status).toBe(200);

    // What the submission said, in its own words: none of it in the clear in any mode but redacted's masks.
    const quoted = ["ann@example.com", "555", "cheap-seo", "“free”", "“audit”", "“offer”"];
    const fullText = await raw(full.workspaceId);
    for (const secret of [...quoted, "Ann"]) expect(fullText).not.toContain(secret);
    expect(JSON.parse(fullText).content.sealed).toMatch(/^k1\./);
    const [opened] = await entries(full.workspaceId, 1);
    expect(opened!.content).toMatchObject({
      mode: "full",
      fields: expect.arrayContaining([["email", "ann@example.com"]]),
    });

    const redactedText = await raw(redacted.workspaceId);
    for (const secret of quoted) expect(redactedText).not.toContain(secret);
    expect(JSON.parse(redactedText).content.fields).toEqual(
      expect.arrayContaining([
        ["email", "[email]"],
        ["message", "Call [phone] or see [link] for a free SEO audit"],
      ]),
    );

    const noneRecord = JSON.parse(await raw(none.workspaceId));
    expect(noneRecord.content).toEqual({ mode: "none" });
    for (const secret of [...quoted, "audit", "offer"])
      expect(JSON.stringify(noneRecord)).not.toContain(secret);
    expect(noneRecord.reasons.length).toBeGreaterThan(0);
    expect(noneRecord.fingerprint).toEqual(expect.any(String));
  });

  it("keeps at most the workspace's maximum, and the retention job trims what is past retention", async () => {
    const key = await classifyKey({ logMaxEntries: 3 });
    for (let i = 0; i < 5; i++) {
      clock.advance(1);
      expect((await classify(key.secretKey)).status).toBe(200);
    }
    await settle();
    expect(await stack.redis.zcard(logLayout(key.workspaceId).ids)).toBe(3);

    await stack.keystore.updateWorkspace(key.workspaceId, { logRetentionDays: 2 });
    clock.advance(3 * DAY);
    const log = stack.verdicts;
    const removed = await enforceRetention({ keystore: stack.keystore, log, logger: silentLogger() });
    expect(removed).toBeGreaterThanOrEqual(3);
    expect(await stack.redis.zcard(logLayout(key.workspaceId).ids)).toBe(0);
    expect(await stack.redis.hlen(logLayout(key.workspaceId).counts)).toBe(0);
  });

  it("forgets a workspace's whole log in one call", async () => {
    const key = await classifyKey();
    await classify(key.secretKey);
    await entries(key.workspaceId, 1);
    await stack.verdicts.forget(key.workspaceId);
    expect(await loggedWorkspaces()).not.toContain(key.workspaceId);
  });

  it("still answers every call when Redis cannot record", async () => {
    const key = await classifyKey();
    // A log key of the wrong type: every write to the workspace's log fails inside Redis.
    await stack.redis.set(logLayout(key.workspaceId).records, "not a hash");
    for (let i = 0; i < 3; i++) expect((await classify(key.secretKey)).status).toBe(200);
    const challenge = await createKey(stack.keystore, { kind: "challenge" });
    await stack.redis.set(logLayout(challenge.workspaceId).records, "not a hash");
    const solution = await solveChallenge(stack.gatewayUrl, challenge.siteKey!);
    expect((await verify(challenge.secretKey, solution)).json).toEqual({ ok: true });
    await settle();
    expect(await stack.redis.type(logLayout(key.workspaceId).records)).toBe("string");
    // Usage still counted: the log's failure never touched the usage commit.
    expect((await stack.usage.daily(key.workspaceId, 1))[0]!.count).toBe(3);
  });
});
