import { createServer, type Server } from "node:http";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { closeServer, listen } from "@sift/runtime";
import { createKey, solveChallenge, startScoringStack, type ScoringStack, type Stack } from "@sift/testkit";
import { formCheck, SiftClient, siftForm, type FormCheck } from "../src/index.ts";

/**
 * The two lines in a Node form handler (issue 38): `siftForm` in an express app and the plain
 * `formCheck`, against the real stack (gateway, verify, classify, a model worker), with real
 * solutions; then the outages the spec advises on (verify down, the model down).
 */
let scoring: ScoringStack;
let stack: Stack;
let client: SiftClient;
let siteKey: string;
let site: Server;
let siteUrl: string;
/** The last test stops the model worker itself (the model's outage). */
let workerStopped = false;

beforeAll(async () => {
  scoring = await startScoringStack({ redisUrl: inject("redisUrl"), inferenceTimeoutMs: 300 });
  stack = scoring.stack;
  const challenge = await createKey(stack.keystore, { kind: "challenge" });
  await stack.keystore.updateConfig(challenge.configId, { difficulty: 1 });
  const classify = await createKey(stack.keystore, { kind: "classify" });
  siteKey = challenge.siteKey!;
  client = new SiftClient({
    baseUrl: stack.gatewayUrl,
    classifyKey: classify.secretKey,
    challengeKey: challenge.secretKey,
    retry: { retries: 1, baseDelayMs: 10, maxDelayMs: 50 },
  });

  // The handler as a site writes it: two lines (the middleware, then reading req.sift).
  const app = express();
  app.post(
    "/contact",
    express.urlencoded({ extended: false }),
    siftForm(client, { omit: ["csrf"] }),
    (req, res) => {
      res.json((req as unknown as { sift: FormCheck }).sift);
    },
  );
  site = createServer(app);
  siteUrl = `http://127.0.0.1:${await listen(site, 0, "127.0.0.1")}`;
});
afterAll(async () => {
  if (site) await closeServer(site);
  if (!workerStopped) return scoring?.stop();
  await stack?.stop();
  await scoring?.nats.stop();
});

const CLEAN = {
  name: "Ann",
  email: "ann@example.org",
  message: "Could you send me the opening hours for the shop next week?",
};
const SPAM = {
  name: "Cheap SEO",
  email: "sales@seo-rank-boost.example",
  message:
    "Buy cheap viagra online!!! Best SEO backlinks, casino bonus 500% click here http://bit.ly/xyz now",
};

const submit = async (fields: Record<string, string>): Promise<FormCheck> => {
  const reply = await fetch(`${siteUrl}/contact`, { method: "POST", body: new URLSearchParams(fields) });
  expect(reply.status).toBe(200);
  return (await reply.json()) as FormCheck;
};
const solved = () => solveChallenge(stack.gatewayUrl, siteKey);

describe("siftForm (express)", () => {
  it("accepts a clean form with a solved challenge, and says why", async () => {
    const result = await submit({ ...CLEAN, csrf: "t0k3n", _vendor: await solved() });
    expect(result).toMatchObject({ accepted: true, verdict: { decidedBy: "service", label: "clean" } });
    expect(result.challenge).toMatchObject({ decidedBy: "service", accepted: true });
    expect(Array.isArray(result.reasons)).toBe(true);
  });

  it("refuses spam with a solved challenge, with the signals that made it spam", async () => {
    const result = await submit({ ...SPAM, _vendor: await solved() });
    expect(result).toMatchObject({ accepted: false, verdict: { label: "spam" } });
    expect(result.reasons.length).toBeGreaterThan(0);
    expect(result.reasons[0]).toMatchObject({ signal: expect.any(String), message: expect.any(String) });
  });

  it("refuses a form without a solution, and a solution's second use, classifying nothing", async () => {
    expect(await submit(CLEAN)).toMatchObject({
      accepted: false,
      verdict: null,
      reasons: [{ signal: "challenge", message: "Missing solution" }],
    });
    const solution = await solved();
    expect((await submit({ ...CLEAN, _vendor: solution })).accepted).toBe(true);
    expect(await submit({ ...CLEAN, _vendor: solution })).toMatchObject({
      accepted: false,
      verdict: null,
      reasons: [{ signal: "challenge", message: "Spent challenge" }],
    });
  });

  it("reads the solution from a vendor's field (a page that kept its widget markup)", async () => {
    const result = await submit({ ...CLEAN, "g-recaptcha-response": await solved() });
    expect(result.accepted).toBe(true);
  });
});

describe("formCheck (any framework)", () => {
  it("takes FormData, URLSearchParams or a request with a parsed body", async () => {
    const data = new FormData();
    for (const [k, v] of Object.entries(CLEAN)) data.append(k, v);
    data.append("_vendor", await solved());
    expect((await formCheck(client)(data)).accepted).toBe(true);
    expect(
      (await formCheck(client)(new URLSearchParams({ ...SPAM, _vendor: await solved() }))).accepted,
    ).toBe(false);
    expect((await formCheck(client)({ body: { ...CLEAN, _vendor: await solved() } })).accepted).toBe(true);
  });

  it("applies the spec's outage advice: verify down accepts, the model down is clean", async () => {
    await stack.stopService("verify");
    try {
      const result = await formCheck(client)({ body: { ...CLEAN, _vendor: "1.a.b.c" } });
      expect(result).toMatchObject({
        accepted: true,
        challenge: { decidedBy: "policy", cause: "internal-error" },
      });
      expect(result.reasons[0]).toEqual({ signal: "outage", message: "challenge: internal-error" });
    } finally {
      await stack.startService("verify");
    }
    workerStopped = true;
    await scoring.worker.stop();
    const result = await formCheck(client)({ body: { ...SPAM, _vendor: await solved() } });
    expect(result).toMatchObject({ accepted: true, verdict: { decidedBy: "policy", label: "clean" } });
    expect(result.reasons).toEqual([
      { signal: "outage", message: "Classification is temporarily unavailable" },
    ]);
  });
});
