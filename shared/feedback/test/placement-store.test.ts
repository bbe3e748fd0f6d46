import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ReportJob, NormalizedField } from "@sift/contracts";
import {
  encodeSignature,
  ReportStore,
  fingerprint,
  personalize,
  ReviewedScores,
  STRICTNESS_RATES,
  type PopulationCurve,
  type WorkspaceState,
} from "../src/index.ts";

let redis: Redis;
let store: ReportStore;
let n = 0;
const workspace = () => `ws_placement_${process.pid}_${++n}`;
const clock = { now: () => 1_700_000_000_000 };

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  store = new ReportStore({ redis, clock, prefix: `test:${process.pid}:` });
});
afterAll(() => redis?.quit());

const MODEL = {
  version: "1.3.0+test",
  population: {
    rates: [0.001, 0.003, 0.01, 0.03, 0.1, 0.3],
    logOdds: [3, 2.2, Math.log(4), 0.5, -0.5, -2],
  } satisfies PopulationCurve,
};
const fields: NormalizedField[] = [
  ["message", "Hello, is the oak dining table still available this weekend?"],
];
const job = (
  workspaceId: string,
  label: "spam" | "clean",
  logOdds: number,
  extra: Partial<ReportJob> = {},
): ReportJob => ({
  workspaceId,
  label,
  buckets: [1, 2, 3],
  fingerprint: encodeSignature(fingerprint([["message", `report ${logOdds} ${label} ${Math.random()}`]])),
  reportedAt: clock.now(),
  logOdds,
  modelVersion: MODEL.version,
  ...extra,
});
const stateOf = async (id: string): Promise<WorkspaceState> => {
  const s = await store.snapshot(id);
  return {
    version: s.version,
    own: null,
    lists: s.lists,
    strictness: s.strictness,
    reviewed: s.reviewed ? new ReviewedScores(s.reviewed) : null,
    languages: s.languages,
  };
};
const scoreFor = (state: WorkspaceState, base: number) =>
  personalize({ baseScore: base, ids: [], fields, state, shared: null, model: MODEL }).score;

describe("per-site placement through the report store (real Redis)", () => {
  it("moves 0.8 for the reviewing site only, and never below its strictness's bound on its own clean", async () => {
    const site = workspace();
    const other = workspace();
    // 200 reviewed clean messages the model scores low, and spam.
    for (let i = 0; i < 200; i++) await store.record(site, job(site, "clean", -6 + (i % 10) * 0.1));
    for (let i = 0; i < 20; i++) await store.record(site, job(site, "spam", 0.3));
    // The other site reviewed clean messages of another model only: not placed on.
    for (let i = 0; i < 50; i++)
      await store.record(other, job(other, "clean", -6, { modelVersion: "another" }));

    const mine = await stateOf(site);
    const theirs = await stateOf(other);
    const placed = mine.reviewed!.placement(MODEL, "balanced")!;
    expect(placed.reviewed).toBe(200);
    // A message at base 0.7 was clean for the model; on this site 0.8 has moved down past it.
    expect(scoreFor(mine, 0.7)).toBeGreaterThanOrEqual(0.8);
    expect(scoreFor(mine, 0.2)).toBeLessThan(0.8);

    // Four more reviewed clean messages just below the moved 0.8: it cannot stay below them.
    for (let i = 0; i < 4; i++) await store.record(site, job(site, "clean", 0.6 + i * 0.1));
    const bounded = (await stateOf(site)).reviewed!.placement(MODEL, "balanced")!;
    expect(bounded.reviewed).toBe(204);
    // The bound: at most 1 % of its 204 reviewed clean (2) at or above its 0.8.
    const threshold = Math.log(4) - bounded.offset;
    const high = [0.6, 0.7, 0.8, 0.9].filter((z) => z >= threshold).length;
    expect(high).toBeLessThanOrEqual(Math.floor(STRICTNESS_RATES.balanced * 204));
    expect(bounded.offset).toBeLessThan(placed.offset);
    // Every other site keeps the model's label: same score as the base model alone.
    expect(theirs.reviewed!.placement(MODEL, "balanced")).toBeNull();
    expect(scoreFor(theirs, 0.6)).toBeCloseTo(0.6, 9);
    expect(scoreFor(await stateOf(workspace()), 0.79)).toBeCloseTo(0.79, 9);
  });

  it("learns the site's scripts and languages from its clean reports, its spam's languages apart, and forgets them with the rest", async () => {
    const site = workspace();
    for (let i = 0; i < 3; i++)
      await store.record(site, job(site, "clean", -5, { script: "Latn", language: "en" }));
    // Counted before eld as franc-min's ISO 639-3: read as the same language.
    await store.record(site, job(site, "clean", -5, { script: "Latn", language: "eng" }));
    await store.record(site, job(site, "spam", 2, { script: "Cyrl", language: "ru" }));
    const { languages } = await store.snapshot(site);
    expect(languages?.total).toBe(4);
    expect([...languages!.scripts]).toEqual([["Latn", 4]]);
    expect([...languages!.languages]).toEqual([["en", 4]]);
    expect([...languages!.spamLanguages]).toEqual([["ru", 1]]);
    await store.forget(site);
    const after = await store.snapshot(site);
    expect(after.languages).toBeNull();
    expect(after.reviewed).toBeNull();
  });

  it("carries the site's stated languages in its snapshot, and a change moves its version for the workers", async () => {
    const site = workspace();
    const before = await store.version(site);
    expect((await store.snapshot(site)).expectedLanguages).toEqual([]);
    await store.setExpectedLanguages(site, ["es", "en"]);
    const stated = await store.snapshot(site);
    expect(stated.expectedLanguages).toEqual(["es", "en"]);
    expect(stated.version).toBeGreaterThan(before);
    await store.setExpectedLanguages(site, []);
    const learned = await store.snapshot(site);
    expect(learned.expectedLanguages).toEqual([]);
    expect(learned.version).toBeGreaterThan(stated.version);
  });

  it("catches a long message in a script a monolingual site never received, and leaves a multilingual site's alone", async () => {
    const english = workspace();
    const mixed = workspace();
    for (let i = 0; i < 120; i++) {
      await store.record(english, job(english, "clean", -5, { script: "Latn", language: "en" }));
      const cyrillic = i % 2 === 0;
      await store.record(
        mixed,
        job(
          mixed,
          "clean",
          -5,
          cyrillic ? { script: "Cyrl", language: "ru" } : { script: "Latn", language: "en" },
        ),
      );
    }
    const georgian: NormalizedField[] = [
      [
        "message",
        "გამარჯობა, გთავაზობთ ძალიან იაფ სესხს ყოველგვარი შემოწმების გარეშე, დაგვიკავშირდით დღესვე",
      ],
    ];
    const verdict = (state: WorkspaceState) =>
      personalize({
        baseScore: 0.05,
        ids: [],
        fields: georgian,
        state,
        shared: null,
        model: MODEL,
        baseReasons: [],
      });
    const caught = verdict(await stateOf(english));
    expect(caught.score).toBeGreaterThanOrEqual(0.8);
    expect(caught.reasons).toContainEqual(
      expect.objectContaining({
        signal: "new_script",
        label: "written in Georgian; this site receives English",
      }),
    );
    // The mixed site's verdict is what it would be without any language profile (its placement aside).
    const mixedState = await stateOf(mixed);
    const left = verdict(mixedState);
    expect(left.score).toBe(verdict({ ...mixedState, languages: null }).score);
    expect(left.score).toBeLessThan(0.8);
    expect(left.reasons.map((r) => r.signal)).not.toContain("new_script");
  });
});

describe("a report applied by id", () => {
  it("is applied once however often its job is handed out (a stalled job's redelivery)", async () => {
    const site = workspace();
    const first = await store.record(site, job(site, "spam", 1), "41");
    expect(await store.record(site, job(site, "spam", 1), "41")).toBe(first);
    expect((await store.stats(site)).spam).toBe(1);
    await store.record(site, job(site, "spam", 1), "42");
    await store.record(site, job(site, "spam", 1));
    expect((await store.stats(site)).spam).toBe(3);
  });
});
