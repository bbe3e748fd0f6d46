import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ReportJob } from "@sift/contracts";
import { encodeSignature, fingerprint, ReportStore, WORKSPACE_PARTS } from "../src/index.ts";

let redis: Redis;
let store: ReportStore;
const prefix = `test:forget:${process.pid}:`;
let n = 0;
const workspace = () => `ws_forget_${process.pid}_${++n}`;
const clock = { now: () => 1_700_000_000_000 };

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  store = new ReportStore({ redis, clock, prefix });
});
afterAll(() => redis?.quit());

const job = (workspaceId: string, label: "spam" | "clean", extra: Partial<ReportJob> = {}): ReportJob => ({
  workspaceId,
  label,
  buckets: [1, 2, 3],
  fingerprint: encodeSignature(fingerprint([["message", `a report ${label} ${Math.random()}`]])),
  reportedAt: clock.now(),
  logOdds: label === "spam" ? 1 : -2,
  modelVersion: "test",
  script: "Latn",
  language: "en",
  ...extra,
});

/** The keys one workspace has under its `{fb:<id>}` tag: a SCAN of that tag's own prefix only. */
const keysOf = async (workspaceId: string): Promise<string[]> => {
  const pattern = `${prefix}{fb:${workspaceId}}:*`;
  const found = new Set<string>();
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    for (const key of keys) found.add(key);
    cursor = next;
  } while (cursor !== "0");
  return [...found].map((key) => key.slice(`${prefix}{fb:${workspaceId}}:`.length)).sort();
};

/** A workspace with every part written: reports of both kinds (one with an example), lists, settings. */
const filled = async (): Promise<string> => {
  const ws = workspace();
  await store.record(ws, job(ws, "spam"), `r-${ws}-1`);
  await store.record(ws, job(ws, "clean", { example: Buffer.from("an example").toString("base64") }));
  await store.addListEntries(
    ws,
    [{ kind: "block", type: "domain", value: "spam.example" }],
    "ann@example.com",
  );
  await store.listPage(ws, { limit: 10, cursor: null });
  await store.setStrictness(ws, "strict");
  await store.setSharing(ws, true);
  await store.setExpectedLanguages(ws, ["de", "en"]);
  return ws;
};

describe("forgetting a deleted workspace's layer, lists and settings (real Redis)", () => {
  it("leaves no key under the workspace's tag, and another workspace's as they were", async () => {
    const gone = await filled();
    const kept = await filled();
    // Every part the store writes is one forgetWorkspace knows (a new part must join WORKSPACE_PARTS).
    expect(await keysOf(gone)).toEqual([...WORKSPACE_PARTS].sort());
    const keptBefore = await store.snapshot(kept);

    await store.forgetWorkspace(gone);

    expect(await keysOf(gone)).toEqual([]);
    expect(await store.lists(gone)).toEqual([]);
    expect(await store.settings(gone)).toEqual({
      strictness: "balanced",
      shareReports: false,
      languages: [],
    });
    expect(await store.stats(gone)).toEqual({ spam: 0, clean: 0, updatedAt: null, version: 0 });
    expect(await store.listAdded(gone)).toEqual(new Map());

    expect(await keysOf(kept)).toEqual([...WORKSPACE_PARTS].sort());
    expect(await store.snapshot(kept)).toEqual(keptBefore);
    expect(await store.settings(kept)).toEqual({
      strictness: "strict",
      shareReports: true,
      languages: ["de", "en"],
    });
  });

  it("runs again on a workspace already forgotten without an error", async () => {
    const ws = await filled();
    await store.forgetWorkspace(ws);
    await store.forgetWorkspace(ws);
    expect(await keysOf(ws)).toEqual([]);
  });
});
