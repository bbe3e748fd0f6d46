import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SPAM_STANDARD, type Reason } from "@sift/contracts";
import { ReportStore } from "@sift/feedback";
import { ManualClock } from "@sift/runtime";
import { createKey, post, startScoringStack, type ScoringStack, type Stack } from "@sift/testkit";

/**
 * The network through the real gateway, classify service, Redis and a model worker: a campaign
 * other old workspaces received moves a site's score and says so; one workspace flooding, new
 * workspaces colluding, opted-out workspaces and a site's own clean reports and allow list move
 * nobody's. SIFT_NETWORK_MIN_AGE is a week here, on a clock the test moves.
 */
const DAY = 24 * 3_600_000;
const clock = new ManualClock(Date.UTC(2026, 10, 1, 9));
let scoring: ScoringStack;
let stack: Stack;
let store: ReportStore;

beforeAll(async () => {
  scoring = await startScoringStack({
    redisUrl: inject("redisUrl"),
    clock,
    keyCacheMs: 0,
    network: { minAgeMs: 7 * DAY, minSites: 3 },
  });
  stack = scoring.stack;
  store = new ReportStore({ redis: stack.redis });
});
afterAll(() => scoring?.stop());

const workspace = async (network = true) => {
  const key = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.updateWorkspace(key.workspaceId, {
    rateLimit: 100_000,
    burst: 100_000,
    ...(network ? {} : { network: false }),
  });
  return key;
};
type Verdict = { label: string; score: number; reasons: Reason[] };
const classify = async (secretKey: string, content: unknown): Promise<Verdict> => {
  const reply = await post(
    `${stack.gatewayUrl}/classify?explain=1`,
    { content, model: SPAM_STANDARD },
    { authorization: `Bearer ${secretKey}` },
  );
  expect(reply.status).toBe(200);
  return reply.json as Verdict;
};
const networkReasons = (v: Verdict) => v.reasons.filter((r) => r.signal.startsWith("network_"));

/** Five campaigns of unrelated wording and links, one per test, so tests do not share spreads. */
const CAMPAIGNS = [
  "Hello, I can get your business listed on the first page for local searches in two weeks, details at https://rank-offer.example.com/plan reply today",
  "Dear owner, our warehouse clearance has designer sunglasses at ninety percent off this weekend only, order now from https://shades-outlet.example.net before stock runs out",
  "Need working capital fast? Approval within one hour, no credit checks, funds deposited tomorrow morning. Apply at https://quickfund-now.example.org or call us",
  "Greetings friend, I represent a foreign investor seeking a trustworthy partner for a confidential transfer, kindly respond via https://secure-partner.example.info for the details",
  "Get ten thousand real followers on every social platform delivered gradually over a month, cheapest packages on https://follow-boost.example.biz with satisfaction guaranteed",
];
let campaigns = 0;
const campaign = () => ({ name: "Alex", message: CAMPAIGNS[campaigns++ % CAMPAIGNS.length]! });

/** Workspaces made now, then aged past the week SIFT_NETWORK_MIN_AGE asks. */
let old: Array<{ workspaceId: string; secretKey: string }> = [];
beforeAll(async () => {
  old = await Promise.all(Array.from({ length: 8 }, () => workspace()));
  clock.advance(8 * DAY);
});

describe("the network in classify", () => {
  it("adds a reason and raises the score once three other old workspaces got the campaign", async () => {
    const message = campaign();
    const [a, b, c, site] = old as [(typeof old)[0], (typeof old)[0], (typeof old)[0], (typeof old)[0]];
    const alone = await classify(site.secretKey, message);
    expect(networkReasons(alone)).toEqual([]);
    await classify(a.secretKey, message);
    await classify(b.secretKey, message);
    const two = await classify(site.secretKey, message);
    expect(networkReasons(two)).toEqual([]);
    expect(two.score).toBe(alone.score);
    await classify(c.secretKey, message);
    const three = await classify(site.secretKey, message);
    const [reason] = networkReasons(three);
    expect(reason?.label).toBe("a link in it sent to 3 other sites in the last 24 h");
    expect(reason?.weight).toBeGreaterThan(0);
    expect(three.score).toBeGreaterThan(alone.score);
  });

  it("counts a workspace once however often it sends: one tenant flooding changes no other label", async () => {
    const message = campaign();
    const [flooder, , , , site] = old as Array<(typeof old)[0]>;
    const before = await classify(site!.secretKey, message);
    for (let i = 0; i < 40; i++) await classify(flooder!.secretKey, message);
    const after = await classify(site!.secretKey, message);
    expect(networkReasons(after)).toEqual([]);
    expect([after.label, after.score]).toEqual([before.label, before.score]);
  });

  it("does not count workspaces younger than SIFT_NETWORK_MIN_AGE: five colluding new tenants change no label", async () => {
    const message = campaign();
    const site = old[5]!;
    const before = await classify(site.secretKey, message);
    const colluders = await Promise.all(Array.from({ length: 5 }, () => workspace()));
    for (const c of colluders) for (let i = 0; i < 3; i++) await classify(c.secretKey, message);
    const after = await classify(site.secretKey, message);
    expect(networkReasons(after)).toEqual([]);
    expect([after.label, after.score]).toEqual([before.label, before.score]);
    // A week later they count like anyone else.
    clock.advance(8 * DAY);
    for (const c of colluders.slice(0, 3)) await classify(c.secretKey, message);
    expect(networkReasons(await classify(site.secretKey, message))).toHaveLength(1);
  });

  it("stops giving and receiving for a workspace that leaves the network", async () => {
    const message = campaign();
    const leavers = await Promise.all(Array.from({ length: 3 }, () => workspace(false)));
    clock.advance(8 * DAY);
    for (const l of leavers) await classify(l.secretKey, message);
    expect(networkReasons(await classify(old[6]!.secretKey, message))).toEqual([]);
    // Three old members send it: the leaver still receives nothing, a member does.
    for (const w of old.slice(0, 3)) await classify(w.secretKey, message);
    expect(networkReasons(await classify(leavers[0]!.secretKey, message))).toEqual([]);
    expect(networkReasons(await classify(old[6]!.secretKey, message))).toHaveLength(1);
  });

  it("leaves a verdict alone that the site's allow list or its own clean report decided", async () => {
    const message = campaign();
    for (const w of old.slice(0, 4)) await classify(w.secretKey, message);
    const allowing = old[5]!;
    const domain = /https:\/\/([^/\s]+)/.exec(message.message)![1]!;
    expect(
      await store.updateList(allowing.workspaceId, "add", { kind: "allow", type: "domain", value: domain }),
    ).not.toBeNull();
    const reporting = old[6]!;
    const reported = await post(
      `${stack.gatewayUrl}/feedback`,
      { content: message, label: "clean" },
      { authorization: `Bearer ${reporting.secretKey}` },
    );
    expect(reported.status).toBe(200);
    const waitFor = async (secretKey: string, signal: string) => {
      for (let i = 0; i < 60; i++) {
        const v = await classify(secretKey, message);
        if (v.reasons.some((r) => r.signal === signal)) return v;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no ${signal}: ${JSON.stringify((await classify(secretKey, message)).reasons)}`);
    };
    expect(networkReasons(await waitFor(allowing.secretKey, "list_allow"))).toEqual([]);
    expect(networkReasons(await waitFor(reporting.secretKey, "near_duplicate_clean"))).toEqual([]);
    expect(networkReasons(await classify(old[7]!.secretKey, message))).toHaveLength(1);
  });
});

/**
 * A deployment that weighs the text (SIFT_NETWORK_WEIGHTS; the fitted defaults weigh it 0,
 * docs/network.md): its own stack, so its spreads are its own.
 */
describe("the network in classify, with the text weighed", () => {
  let textual: ScoringStack;
  let sites: Array<{ workspaceId: string; secretKey: string }> = [];
  beforeAll(async () => {
    textual = await startScoringStack({
      redisUrl: inject("redisUrl"),
      clock,
      keyCacheMs: 0,
      network: {
        minAgeMs: 7 * DAY,
        minSites: 3,
        weights: { text: 0.5, short: 0, link: 0.25, contact: 0, burst: 1, cap: 3 },
      },
    });
    sites = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const key = await createKey(textual.stack.keystore, { kind: "classify" });
        await textual.stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 100_000, burst: 100_000 });
        return key;
      }),
    );
    clock.advance(8 * DAY);
  });
  afterAll(() => textual?.stop());

  it("counts a campaign with no link by its text, each copy from another sender, past one person's own spread", async () => {
    const send = async (secretKey: string, content: unknown): Promise<Verdict> => {
      const reply = await post(
        `${textual.stack.gatewayUrl}/classify?explain=1`,
        { content, model: SPAM_STANDARD },
        { authorization: `Bearer ${secretKey}` },
      );
      expect(reply.status).toBe(200);
      return reply.json as Verdict;
    };
    const text =
      "We are hiring remote data entry assistants, two hours a day from home, weekly pay, no experience needed, reply with your age and country";
    const [a, b, c, site] = sites as [
      (typeof sites)[0],
      (typeof sites)[0],
      (typeof sites)[0],
      (typeof sites)[0],
    ];
    const copy = (i: number) => ({ name: `Sender ${i}`, email: `sender${i}@mail.example`, message: text });
    const alone = await send(site.secretKey, copy(0));
    expect(networkReasons(alone)).toEqual([]);
    for (const [i, w] of [a, b, c].entries()) await send(w.secretKey, copy(i + 1));
    const three = await send(site.secretKey, copy(9));
    const [reason] = networkReasons(three);
    expect(reason).toMatchObject({ signal: "network_text", label: "sent to 3 other sites in the last 24 h" });
    expect(three.score).toBeGreaterThan(alone.score);
    // One person sending another text to the same sites keeps one address: no campaign.
    const asked = {
      name: "Robin",
      email: "robin@mail.example",
      message: `${text.replace("hiring", "looking for")} ok`,
    };
    for (const w of [a, b, c]) await send(w.secretKey, asked);
    expect(networkReasons(await send(site.secretKey, asked))).toEqual([]);
  });
});
