import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, FeedbackMessage, SPAM_STANDARD, type Reason } from "@sift/contracts";
import { ReportStore } from "@sift/feedback";
import { createKey, post, startScoringStack, type ScoringStack, type Stack } from "@sift/testkit";

/**
 * POST /feedback and what it teaches, through the real gateway, classify service, learner
 * (BullMQ), NATS announcements and a model worker scoring with learned state from Redis.
 */
let scoring: ScoringStack;
let stack: Stack;
let store: ReportStore;

beforeAll(async () => {
  scoring = await startScoringStack({ redisUrl: inject("redisUrl") });
  stack = scoring.stack;
  store = new ReportStore({ redis: stack.redis });
});
afterAll(() => scoring?.stop());

const workspace = async () => {
  const key = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 100_000, burst: 100_000 });
  return key;
};
const auth = (secretKey: string) => ({ authorization: `Bearer ${secretKey}` });
/** Verdicts answered per key: each is counted usage, reports are not. */
const verdicts = new Map<string, number>();
const classify = async (secretKey: string, content: unknown, query = "") => {
  verdicts.set(secretKey, (verdicts.get(secretKey) ?? 0) + 1);
  const reply = await post(
    `${stack.gatewayUrl}/classify${query}`,
    { content, model: SPAM_STANDARD },
    auth(secretKey),
  );
  expect(reply.status).toBe(200);
  return reply.json as { label: string; score: number; model: string; reasons?: Reason[] };
};
const report = (secretKey: string, content: unknown, label: string) =>
  post(`${stack.gatewayUrl}/feedback`, { content, label }, auth(secretKey));

/** Polls until `check` holds, for at most five seconds (the bound on a report's effect). */
const within5s = async (check: () => Promise<boolean>): Promise<number> => {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > 5_000) throw new Error("no effect within 5 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
};

/**
 * A campaign the base model finds harmless (fake order questions that fish for replies), as
 * one site sees it: the site's reports teach what no public data set could.
 */
const CAMPAIGN = {
  name: "Linda",
  email: "linda.k@gmail.com",
  message:
    "Hi, I ordered the oak dining chairs last week (order 4471) and they have not arrived yet. Any news?",
};
/** The same campaign, resent with other numbers, another name and a link. */
const RESEND = {
  name: "Maria",
  email: "maria.w@gmail.com",
  message:
    "Hi, I ordered the oak dining chairs last week (order 9012) and they have not arrived yet. Any news? " +
    "https://track.example/parcel?id=77",
};
const ORDER_QUESTION = {
  name: "Tom",
  message:
    "Hi, I ordered the walnut side table last week (order 18233) and it has not arrived yet. Any news?",
};

/** The card's helpline comment (issue 16): a name that is a business and a toll-free number. */
const HELPLINE = {
  comment_author: "QuickBooks Support",
  comment_author_email: "support@quickbooks-help-desk.com",
  comment_content:
    "Great post! If you face any issue with QuickBooks call our QuickBooks support phone number +1-800-555-0199 for instant help.",
};

describe("POST /feedback", () => {
  it("turns a reported spam's near-duplicates into spam for that workspace only, within 5 s", async () => {
    const site = await workspace();
    const other = await workspace();
    const before = await classify(site.secretKey, RESEND);
    const otherBefore = await classify(other.secretKey, RESEND);
    expect(before.score).toBeLessThan(0.8);

    const answer = await report(site.secretKey, CAMPAIGN, "spam");
    expect(answer).toMatchObject({ status: 200, json: { ok: true } });
    await within5s(async () => (await classify(site.secretKey, RESEND)).score >= 0.8);
    expect((await classify(site.secretKey, RESEND)).label).toBe("spam");

    // Another workspace's verdicts do not move.
    expect((await classify(other.secretKey, RESEND)).score).toBe(otherBefore.score);
    // Reports are not usage: only the verdicts are counted.
    const usage = await stack.usage.status((await stack.keystore.getWorkspace(site.workspaceId))!);
    expect(usage.used30d).toBe(verdicts.get(site.secretKey));
  });

  it("keeps a reported clean message's near-duplicates under 0.8 whatever the base model says", async () => {
    const site = await workspace();
    const spammy = { message: "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now." };
    const resent = { message: "URGENT! You have won a £2000 cash prize. To claim call 09061709999 now!" };
    expect((await classify(site.secretKey, resent)).score).toBeGreaterThanOrEqual(0.8);
    expect((await report(site.secretKey, spammy, "clean")).status).toBe(200);
    await within5s(async () => (await classify(site.secretKey, resent)).score < 0.8);
  });

  it("accepts form bodies with _label, and refuses a missing or other label with its 400", async () => {
    const site = await workspace();
    const form = await post(
      `${stack.gatewayUrl}/feedback`,
      new URLSearchParams({ message: "hello there", _label: "clean" }).toString(),
      { ...auth(site.secretKey), "content-type": "application/x-www-form-urlencoded" },
    );
    expect(form).toMatchObject({ status: 200, json: { ok: true } });
    for (const label of [undefined, "ham", 1, ""]) {
      expect(await report(site.secretKey, "hello", label as string)).toMatchObject({
        status: 400,
        json: { ok: false, message: FeedbackMessage.invalidLabel },
      });
    }
    expect(await report(site.secretKey, "", "spam")).toMatchObject({
      status: 400,
      json: { message: ClassifyMessage.contentEmpty },
    });
    expect(await report(site.secretKey, 42, "spam")).toMatchObject({
      status: 400,
      json: { message: ClassifyMessage.contentType },
    });
  });

  it("answers 401, 403, 413 and 429 exactly as classify does", async () => {
    const site = await workspace();
    expect(await post(`${stack.gatewayUrl}/feedback`, { content: "x", label: "spam" })).toMatchObject({
      status: 401,
      json: { ok: false, message: ClassifyMessage.missingKey },
    });
    expect(await report("sk_nope", "x", "spam")).toMatchObject({
      status: 401,
      json: { message: ClassifyMessage.invalidKey },
    });
    const challenge = await createKey(stack.keystore, { kind: "challenge" });
    expect(await report(challenge.secretKey, "x", "spam")).toMatchObject({
      status: 401,
      json: { message: ClassifyMessage.challengeKey },
    });
    await stack.keystore.updateWorkspace(site.workspaceId, { classify: false });
    expect(await report(site.secretKey, "x", "spam")).toMatchObject({
      status: 403,
      json: { message: ClassifyMessage.classifyOff },
    });
    const big = await post(
      `${stack.gatewayUrl}/feedback`,
      { content: "x".repeat(1024 * 1024), label: "spam" },
      auth(site.secretKey),
    );
    expect(big).toMatchObject({ status: 413, json: { message: ClassifyMessage.bodyTooLarge } });

    // The key's rate limit is shared with classify.
    const limited = await createKey(stack.keystore, { kind: "classify" });
    await stack.keystore.updateWorkspace(limited.workspaceId, { rateLimit: 0.001, burst: 2 });
    expect((await classify(limited.secretKey, "hello")).label).toBeDefined();
    expect((await report(limited.secretKey, "hello", "clean")).status).toBe(200);
    const refused = await report(limited.secretKey, "hello", "clean");
    expect(refused).toMatchObject({
      status: 429,
      json: { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("accepts the test key's reports and stores nothing", async () => {
    // This stack's own counter: other test files share the Redis (and the learner's queue), so
    // counting keys there would see their reports arrive.
    const reports = async (outcome: string) => {
      const metric = await stack.metrics.classify.getSingleMetric("sift_feedback_reports_total")!.get();
      return metric.values.filter((v) => v.labels["outcome"] === outcome).reduce((n, v) => n + v.value, 0);
    };
    const [queued, tested] = [await reports("queued"), await reports("test")];
    expect(await report("test", CAMPAIGN, "spam")).toMatchObject({ status: 200, json: { ok: true } });
    expect(await report("test", CAMPAIGN, "clean")).toMatchObject({ status: 200, json: { ok: true } });
    expect([await reports("queued"), await reports("test")]).toEqual([queued, tested + 2]);
  });

  it("counts each report's language for the site (clean by script and language, spam by language), never its text", async () => {
    const site = await workspace();
    const clean = {
      message: "Hola, ¿la mesa de roble sigue disponible? Podría recogerla el sábado por la mañana.",
    };
    const spam = {
      message: "Здравствуйте, предлагаем продвижение вашего сайта в поиске и рекламу по низкой цене",
    };
    expect((await report(site.secretKey, clean, "clean")).status).toBe(200);
    expect((await report(site.secretKey, spam, "spam")).status).toBe(200);
    await within5s(
      async () =>
        (await store.stats(site.workspaceId)).clean + (await store.stats(site.workspaceId)).spam === 2,
    );
    const { languages } = await store.snapshot(site.workspaceId);
    expect([...languages!.scripts]).toEqual([["Latn", 1]]);
    expect([...languages!.languages]).toEqual([["es", 1]]);
    expect([...languages!.spamLanguages]).toEqual([["ru", 1]]);
  });

  it("forgets a workspace's reports on request: its scores return to the base model's", async () => {
    const site = await workspace();
    const base = (await classify(site.secretKey, RESEND)).score;
    await report(site.secretKey, CAMPAIGN, "spam");
    await within5s(async () => (await classify(site.secretKey, RESEND)).score >= 0.8);
    expect((await store.stats(site.workspaceId)).spam).toBe(1);
    await store.forget(site.workspaceId);
    await within5s(async () => (await classify(site.secretKey, RESEND)).score === base);
    expect(await store.stats(site.workspaceId)).toMatchObject({ spam: 0, clean: 0 });
  });

  it("shares a workspace's reports with every workspace once it opts in, its own reports winning", async () => {
    const sharer = await workspace();
    const neighbour = await workspace();
    const opinionated = await workspace();
    const message = {
      message: "Hi, our studio builds shop websites in 48 hours. Book a call: calendly.example/store-builds",
    };
    const variant = { ...message, message: message.message.replace("48", "72") };
    const neighbourBase = (await classify(neighbour.secretKey, variant)).score;
    expect(neighbourBase).toBeLessThan(0.8);

    // Not shared: the neighbour is unaffected.
    await report(sharer.secretKey, message, "spam");
    await within5s(async () => (await classify(sharer.secretKey, variant)).score >= 0.8);
    expect((await classify(neighbour.secretKey, variant)).score).toBe(neighbourBase);

    // Shared, but alone: no other sharing workspace agrees, so the shared layer does not move.
    await store.setSharing(sharer.workspaceId, true);
    await report(sharer.secretKey, message, "spam");
    await within5s(async () => (await store.stats(sharer.workspaceId)).spam === 2);
    expect((await classify(neighbour.secretKey, variant)).score).toBe(neighbourBase);

    // A second sharing workspace agrees: both reports weigh in, and the neighbour's verdicts move,
    // but a workspace's own clean report wins.
    const second = await workspace();
    await store.setSharing(second.workspaceId, true);
    await report(opinionated.secretKey, message, "clean");
    await report(second.secretKey, variant, "spam");
    await within5s(async () => (await classify(neighbour.secretKey, variant)).score >= 0.8);
    await within5s(async () => (await classify(opinionated.secretKey, variant)).score < 0.8);
    expect((await store.stats("_shared")).spam).toBeGreaterThanOrEqual(2);
    await store.forget("_shared");
  });
});

describe("the shared layer", () => {
  it("lets no single sharing workspace steer it: reporting every clean message as spam changes nobody's label", async () => {
    await store.forget("_shared");
    const rogue = await workspace();
    await store.setSharing(rogue.workspaceId, true);
    const neighbour = await workspace();
    const messages = Array.from({ length: 24 }, (_, i) => ({
      name: `Customer ${i}`,
      message: `Hello, could you tell me whether the order ${1000 + i} for the ${["oak", "pine", "ash"][i % 3]} table ships this week? Thank you.`,
    }));
    const before = await Promise.all(messages.map((m) => classify(neighbour.secretKey, m)));
    for (const m of messages) await report(rogue.secretKey, m, "spam");
    await within5s(async () => (await store.stats(rogue.workspaceId)).spam === messages.length);
    // The rogue's own verdicts move (its reports are its own business) ...
    expect((await classify(rogue.secretKey, messages[0]!)).label).toBe("spam");
    // ... the shared layer holds none of it, and every other workspace's verdict is unchanged.
    expect((await store.stats("_shared")).spam).toBe(0);
    const after = await Promise.all(messages.map((m) => classify(neighbour.secretKey, m)));
    expect(after).toEqual(before);
  });
});

describe("per-workspace lists", () => {
  it("puts a block match at 0.8 or more and an allow match under 0.8, each with its reason", async () => {
    const site = await workspace();
    await store.updateList(site.workspaceId, "add", {
      kind: "block",
      type: "domain",
      value: "bizdir.example",
    });
    const blocked = await within5s(
      async () =>
        (await classify(site.secretKey, { message: "see https://www.bizdir.example/x" })).score >= 0.8,
    );
    expect(blocked).toBeLessThan(5_000);
    const explained = await classify(
      site.secretKey,
      { message: "see https://www.bizdir.example/x" },
      "?explain=1",
    );
    expect(explained.reasons).toContainEqual(
      expect.objectContaining({
        signal: "list_block",
        label: "block list domain: bizdir.example",
        field: "message",
      }),
    );

    await store.updateList(site.workspaceId, "add", { kind: "allow", type: "phrase", value: "You Have WON" });
    const spam = { message: "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now." };
    await within5s(async () => (await classify(site.secretKey, spam)).score < 0.8);
    const allowed = await classify(site.secretKey, spam, "?explain=1");
    const reason = allowed.reasons?.find(
      (r) => r.signal === "list_allow" && r.label === "allow list phrase: you have won",
    );
    expect(reason).toMatchObject({ field: "message" });
    expect(reason!.weight).toBeLessThan(0);
  });

  it("are ignored for the test key", async () => {
    const site = await workspace();
    await store.updateList(site.workspaceId, "add", { kind: "block", type: "phrase", value: "hello" });
    const reply = await post(
      `${stack.gatewayUrl}/classify`,
      { content: "hello", model: SPAM_STANDARD },
      { authorization: "Bearer test" },
    );
    expect(reply.json).toEqual({ label: "clean", score: 0, model: SPAM_STANDARD });
  });
});

describe("POST /classify?explain=1", () => {
  it("adds at most 10 reasons, strongest first, and without the parameter answers the spec's three fields", async () => {
    const site = await workspace();
    const plain = await classify(site.secretKey, ORDER_QUESTION);
    expect(Object.keys(plain).sort()).toEqual(["label", "model", "score"]);

    const explained = await classify(site.secretKey, ORDER_QUESTION, "?explain=1");
    expect(explained.score).toBe(plain.score);
    expect(explained.reasons!.length).toBeGreaterThan(0);
    expect(explained.reasons!.length).toBeLessThanOrEqual(10);
    const weights = explained.reasons!.map((r) => Math.abs(r.weight));
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    // The signals themselves, each a code, words for a person, and its field.
    for (const reason of explained.reasons!) {
      expect(reason.signal).toMatch(/^[a-z_]+$/);
      expect(reason.label).toBeTruthy();
    }
    expect(explained.reasons!.some((r) => r.signal === "word" && r.field === "message")).toBe(true);

    // Reports of both labels: from one label only the layer learns no direction (docs/feedback.md).
    await report(site.secretKey, { message: "When does the shop open tomorrow morning?" }, "clean");
    await report(site.secretKey, CAMPAIGN, "spam");
    await within5s(async () => {
      const stats = await store.stats(site.workspaceId);
      return stats.spam === 1 && stats.clean === 1;
    });
    await within5s(async () => (await classify(site.secretKey, RESEND)).score >= 0.8);
    const learned = await classify(site.secretKey, RESEND, "?explain=1");
    expect(learned.reasons!.some((r) => r.signal === "near_duplicate_spam")).toBe(true);
    expect(learned.reasons!.some((r) => r.signal === "learned_site")).toBe(true);
  });

  it("names the words and form signals that made a helpline comment spam-like, each in its field", async () => {
    const site = await workspace();
    const explained = await classify(site.secretKey, HELPLINE, "?explain=1");
    const reasons = explained.reasons!;
    expect(reasons.length).toBeLessThanOrEqual(10);
    const weights = reasons.map((r) => Math.abs(r.weight));
    expect(weights).toEqual([...weights].sort((a, b) => b - a));
    expect(reasons).toContainEqual(
      expect.objectContaining({
        signal: "tollfree_phone",
        label: "toll-free helpline number",
        field: "comment_content",
      }),
    );
    const words = reasons.filter((r) => r.signal === "word");
    expect(words.length).toBeGreaterThan(0);
    for (const w of words) expect(w.label).toMatch(/^(?:“[^”]+”|a number)$/);
  });

  it("explains the test key's verdict by its marker", async () => {
    const reply = await post(
      `${stack.gatewayUrl}/classify?explain=1`,
      { content: "vendor-test-spam", model: SPAM_STANDARD },
      { authorization: "Bearer test" },
    );
    expect(reply.json).toEqual({
      label: "spam",
      score: 1,
      model: SPAM_STANDARD,
      reasons: [{ signal: "test_marker", label: "test marker vendor-test-spam", weight: 1 }],
    });
  });
});
