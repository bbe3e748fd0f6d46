import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { SPAM_STANDARD, type Reason } from "@sift/contracts";
import { ReportStore } from "@sift/feedback";
import { readModelMeta } from "@sift/model";
import { createKey, post, startScoringStack, type ScoringStack, type Stack } from "@sift/testkit";

/**
 * A workspace's strictness and languages through the real gateway, classify service and a model
 * worker that reads them from Redis with the workspace's learned state (docs/feedback.md,
 * "Strictness" and "The site's languages"; the worker identifies a message's language with eld).
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
type Verdict = { label: string; score: number; model: string; reasons?: Reason[] };
const classify = async (secretKey: string, content: unknown, query = ""): Promise<Verdict> => {
  const reply = await post(
    `${stack.gatewayUrl}/classify${query}`,
    { content, model: SPAM_STANDARD },
    { authorization: `Bearer ${secretKey}` },
  );
  expect(reply.status).toBe(200);
  return reply.json as Verdict;
};
const within5s = async (check: () => Promise<boolean>): Promise<void> => {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > 5_000) throw new Error("no effect within 5 s");
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** A pitch the committed model scores between strict's threshold and balanced's (0.69-0.8). */
const BORDERLINE =
  "Hello, our agency builds online stores in 48 hours at a low price, unlimited revisions. Book a call now: calendly.example/store-builds";
const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const logit = (p: number) => Math.log(p / (1 - p));

describe("workspace strictness", () => {
  it("flags a borderline submission on strict that balanced leaves clean, in that workspace only", async () => {
    const { strictness } = readModelMeta();
    const [balanced, strict, relaxed] = [await workspace(), await workspace(), await workspace()];
    const before = await classify(balanced.secretKey, BORDERLINE);
    // The fixture must stay borderline for the committed model, or this test proves nothing.
    expect(before.label).toBe("clean");
    expect(sigmoid(logit(before.score) + strictness.strict)).toBeGreaterThanOrEqual(0.8);

    expect(await store.setStrictness(strict.workspaceId, "strict")).toBeGreaterThan(0);
    await store.setStrictness(relaxed.workspaceId, "relaxed");
    await within5s(async () => (await classify(strict.secretKey, BORDERLINE)).label === "spam");
    const flagged = await classify(strict.secretKey, BORDERLINE, "?explain=1");
    expect(flagged.score).toBeCloseTo(sigmoid(logit(before.score) + strictness.strict), 5);
    expect(flagged.reasons).toContainEqual(expect.objectContaining({ signal: "strictness" }));

    // Another workspace, and the test key, are untouched by the strict one.
    expect(await classify(balanced.secretKey, BORDERLINE)).toEqual(before);
    await within5s(async () => (await classify(relaxed.secretKey, BORDERLINE)).score < before.score);
    const test = await post(
      `${stack.gatewayUrl}/classify`,
      { content: BORDERLINE, model: SPAM_STANDARD },
      { authorization: "Bearer test" },
    );
    expect(test.json).toEqual({ label: "clean", score: 0, model: SPAM_STANDARD });

    // Back to balanced: the model's own score again.
    await store.setStrictness(strict.workspaceId, "balanced");
    await within5s(async () => (await classify(strict.secretKey, BORDERLINE)).score === before.score);
  });
});

/** Polish outreach of several strengths; the test takes one the model in the repository leaves just clean. */
const PITCHES = [
  "Witam, chciałbym zaproponować Państwu współpracę w zakresie marketingu internetowego i SEO dla Państwa strony.",
  "Dzień dobry, zwiększymy ruch na Państwa stronie o 300% w miesiąc. Bezpłatny audyt SEO: seo-audyt.example",
  "Dzień dobry, oferujemy pozycjonowanie stron internetowych i kampanie Google Ads. Zadzwoń dziś: 500 600 700",
];
const HONEST = "Witam, czy ten stół dębowy jest nadal dostępny? Mogę go odebrać w sobotę rano.";
/** A site with no reviews starts `unexpected_language` at its prior weight, log(10/3). */
const PRIOR = Math.log(10 / 3);

describe("a site's languages", () => {
  it("lets a pitch in a language the site does not receive over 0.8, and nothing else", async () => {
    const [english, polish, none] = [await workspace(), await workspace(), await workspace()];
    // The model's own scores, on a site that states nothing and has no reviews.
    const scored = await Promise.all(
      PITCHES.map(async (text) => (await classify(none.secretKey, text)).score),
    );
    const index = scored.findIndex((score) => score < 0.8 && logit(score) + PRIOR >= logit(0.8));
    // A pitch the signal alone can carry over 0.8 must exist, or this test proves nothing.
    expect(index, `model scores ${scored.join(", ")}`).toBeGreaterThanOrEqual(0);
    const pitch = PITCHES[index]!;

    await store.setExpectedLanguages(polish.workspaceId, ["pl", "en"]);
    await store.setExpectedLanguages(english.workspaceId, ["en"]);
    await within5s(async () => (await classify(english.secretKey, pitch)).label === "spam");
    const flagged = await classify(english.secretKey, pitch, "?explain=1");
    expect(flagged.score).toBeCloseTo(sigmoid(logit(scored[index]!) + PRIOR), 5);
    expect(flagged.reasons).toContainEqual(
      expect.objectContaining({
        signal: "unexpected_language",
        label: "written in Polish; this site receives English",
      }),
    );

    // The site that receives Polish, and a site that states nothing, keep the model's score.
    expect((await classify(polish.secretKey, pitch)).score).toBe(scored[index]);
    expect((await classify(none.secretKey, pitch)).score).toBe(scored[index]);
    // An honest Polish question stays clean on the English site: never a verdict on its own.
    const honest = await classify(english.secretKey, HONEST, "?explain=1");
    expect(honest.label).toBe("clean");
    expect(honest.reasons?.map((r) => r.signal)).not.toContain("unexpected_language");
    expect(honest.score).toBe((await classify(none.secretKey, HONEST)).score);

    // Learned again ([]): with no reviews nothing is expected, so nothing is unexpected.
    await store.setExpectedLanguages(english.workspaceId, []);
    await within5s(async () => (await classify(english.secretKey, pitch)).score === scored[index]);
  });
});
