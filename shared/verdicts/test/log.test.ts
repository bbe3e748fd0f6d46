import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  DEFAULT_LOG_SETTINGS,
  LogKeyRing,
  RedisVerdictLog,
  SCAN_BUDGET,
  type LogSettings,
  type Verdict,
  type VerdictInput,
} from "../src/index.ts";

const clock = {
  at: Date.UTC(2026, 10, 2, 12),
  now() {
    return this.at;
  },
};
const prefix = `test:${process.pid}:vlog:`;
const keyA = { id: "a", key: randomBytes(32) };
const keyB = { id: "b", key: randomBytes(32) };
let redis: Redis;
let log: RedisVerdictLog;
let n = 0;
const workspace = () => `ws_vlog_${process.pid}_${++n}`;
const settings = (s: Partial<LogSettings> = {}): LogSettings => ({ ...DEFAULT_LOG_SETTINGS, ...s });

const classify = (workspaceId: string, score: number, extra: Partial<VerdictInput> = {}): VerdictInput => ({
  time: clock.now(),
  workspaceId,
  configId: "cfg_one",
  operation: "classify",
  label: score >= 0.8 ? "spam" : "clean",
  score,
  model: "standard",
  reasons: [{ signal: "word", weight: 1.5, label: "“audit”" }],
  listHits: [],
  fields: [["message", "write to bob@example.com or call +1 (555) 123-4567, see https://spam.example/x"]],
  fingerprint: "fp",
  ...extra,
});

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  log = new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([keyA]), prefix });
});
afterAll(() => redis?.quit());

/** Appends `count` classify verdicts one millisecond apart, scores cycling through 0..0.99. */
const fill = async (ws: string, count: number, s = settings()) => {
  for (let i = 0; i < count; i++) {
    clock.at += 1;
    await log.append(classify(ws, (i % 100) / 100, { configId: i % 2 ? "cfg_odd" : "cfg_even" }), s);
  }
};

const pages = async (ws: string, filter = {}, limit = 7): Promise<Verdict[]> => {
  const all: Verdict[] = [];
  let cursor: string | null = null;
  do {
    const page = await log.list(ws, { filter, cursor, limit });
    all.push(...page.verdicts);
    cursor = page.next;
  } while (cursor);
  return all;
};

describe("the verdict log store", () => {
  it("lists newest first, page by page, every verdict once", async () => {
    const ws = workspace();
    await fill(ws, 40);
    const all = await pages(ws);
    expect(all).toHaveLength(40);
    expect(all.map((v) => v.time)).toEqual([...all.map((v) => v.time)].sort((a, b) => b - a));
    expect(new Set(all.map((v) => v.id)).size).toBe(40);
  });

  it("filters by label, configuration, score band, operation, list hit, reason, time and review", async () => {
    const ws = workspace();
    const start = clock.now();
    await fill(ws, 100);
    await log.append(
      {
        ...classify(ws, 0.95),
        listHits: ["block list domain: spam.example"],
        reasons: [{ signal: "list_block" }],
      },
      settings(),
    );
    await log.append(
      {
        time: clock.now(),
        workspaceId: ws,
        configId: "cfg_v",
        operation: "verify",
        ok: false,
        message: "Invalid solution",
        reasons: [],
        listHits: [],
      },
      settings(),
    );
    expect((await pages(ws, { label: "spam" })).length).toBe(21);
    expect((await pages(ws, { configId: "cfg_odd" })).length).toBe(50);
    const band = await pages(ws, { scoreMin: 0.4, scoreMax: 0.8 });
    expect(band.length).toBe(40);
    expect(band.every((v) => v.score! >= 0.4 && v.score! < 0.8)).toBe(true);
    expect((await pages(ws, { operation: "verify" })).map((v) => v.message)).toEqual(["Invalid solution"]);
    expect((await pages(ws, { listHit: true })).map((v) => v.listHits)).toEqual([
      // The list's value is the submission's own domain: in the clear, the list and type alone.
      ["block list domain"],
    ]);
    expect((await pages(ws, { reason: "list_block" })).length).toBe(1);
    // A reason quoting a word is kept, and filtered, by its kind alone.
    expect((await pages(ws, { reason: "a word of the text" })).length).toBe(100);
    expect((await pages(ws, { reason: "“audit”" })).length).toBe(0);
    expect((await pages(ws, { from: start + 1, to: start + 11 })).map((v) => v.time)).toEqual(
      Array.from({ length: 10 }, (_, i) => start + 10 - i),
    );
    const [first] = await pages(ws, { scoreMin: 0.5, scoreMax: 0.51 });
    await log.review(ws, first!.id, { state: "spam", by: "owner@example.com", at: clock.now() });
    expect((await pages(ws, { reviewed: true })).map((v) => v.id)).toEqual([first!.id]);
    expect((await pages(ws, { reviewed: false })).length).toBe(101);
  });

  it("reads a bounded number of entries per page and hands back a cursor", async () => {
    const ws = workspace();
    await fill(ws, SCAN_BUDGET + 300);
    const page = await log.list(ws, { filter: { configId: "nowhere" } });
    expect(page.verdicts).toEqual([]);
    expect(page.scanned).toBe(SCAN_BUDGET);
    expect(page.next).not.toBeNull();
    const rest = await log.list(ws, { filter: { configId: "nowhere" }, cursor: page.next });
    expect(rest.scanned).toBe(300);
    expect(rest.next).toBeNull();
  });

  it("gets one verdict only inside its own workspace", async () => {
    const ws = workspace();
    const id = await log.append(classify(ws, 0.9), settings());
    expect((await log.get(ws, id!))?.score).toBe(0.9);
    expect(await log.get(workspace(), id!)).toBeNull();
    expect(await log.get(ws, "not-an-id")).toBeNull();
  });

  it("stores exactly what each privacy mode says", async () => {
    const ws = workspace();
    const full = await log.append(classify(ws, 0.9), settings({ privacy: "full" }));
    const redacted = await log.append(classify(ws, 0.9), settings({ privacy: "redacted" }));
    const none = await log.append(classify(ws, 0.9), settings({ privacy: "none" }));
    const raw = async (id: string) => (await redis.hget(log.layout(ws).records, id))!;
    expect(await raw(full!)).not.toContain("bob");
    expect(await raw(full!)).not.toContain("message");
    expect(JSON.parse(await raw(redacted!)).content).toEqual({
      mode: "redacted",
      fields: [["message", "write to [email] or call [phone], see [link]"]],
    });
    expect(JSON.parse(await raw(none!)).content).toEqual({ mode: "none" });
    // Sealed with the fields: the reasons as given, their quoted words included, shown once opened.
    const opened = await log.get(ws, full!);
    expect(opened?.content).toEqual({
      mode: "full",
      fields: classify(ws, 0).fields,
      reasons: classify(ws, 0).reasons,
    });
    expect(opened?.reasons).toEqual(classify(ws, 0).reasons);
    // In the clear the quoting reason says what kind of thing it quoted, not the word.
    expect(JSON.parse(await raw(none!)).reasons).toEqual([
      { signal: "word", weight: 1.5, label: "a word of the text" },
    ]);
  });

  it("opens old entries after a key rotation and shows content unavailable when its key is gone", async () => {
    const ws = workspace();
    const old = await log.append(classify(ws, 0.9), settings({ privacy: "full" }));
    const rotated = new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([keyA, keyB]), prefix });
    const fresh = await rotated.append(classify(ws, 0.9), settings({ privacy: "full" }));
    expect(JSON.parse((await redis.hget(log.layout(ws).records, fresh!))!).content.sealed).toMatch(/^b\./);
    expect((await rotated.get(ws, old!))?.content).toMatchObject({ mode: "full", fields: expect.any(Array) });
    const retired = new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([keyB]), prefix });
    expect((await retired.get(ws, old!))?.content).toEqual({ mode: "full", unavailable: true, keyId: "a" });
    expect((await retired.get(ws, fresh!))?.content).toMatchObject({ fields: expect.any(Array) });
  });

  it("searches text only in full mode", async () => {
    const ws = workspace();
    await log.append(classify(ws, 0.9), settings({ privacy: "redacted" }));
    expect(await pages(ws, { text: "write" })).toEqual([]);
    await log.append(classify(ws, 0.9), settings({ privacy: "full" }));
    expect((await pages(ws, { text: "BOB@" })).length).toBe(1);
  });

  it("keeps at most the maximum number of entries and nothing past retention", async () => {
    const ws = workspace();
    await fill(ws, 30, settings({ maxEntries: 20 }));
    expect(await redis.zcard(log.layout(ws).ids)).toBe(20);
    expect(await redis.hlen(log.layout(ws).records)).toBe(20);
    clock.at += 3 * 86_400_000;
    await log.append(classify(ws, 0.1), settings({ retentionDays: 2 }));
    expect((await pages(ws)).length).toBe(1);
    expect(await redis.hlen(log.layout(ws).summaries)).toBe(1);
    expect(await redis.pttl(log.layout(ws).records)).toBeGreaterThan(86_400_000);
  });

  it("counts outcomes per hour and day, top reasons and the review queue", async () => {
    const ws = workspace();
    const start = clock.now();
    await fill(ws, 10);
    clock.at += 3_600_000;
    await log.append(
      {
        time: clock.now(),
        workspaceId: ws,
        configId: "c",
        operation: "verify",
        ok: false,
        message: "Expired",
        reasons: [],
        listHits: [],
      },
      settings(),
    );
    await log.append(
      {
        time: clock.now(),
        workspaceId: ws,
        configId: "c",
        operation: "verify",
        ok: true,
        reasons: [],
        listHits: [],
      },
      settings(),
    );
    const hours = await log.counts(ws, { bucket: "hour", from: start - 3_600_000, to: clock.now() + 1 });
    expect(hours.reduce((sum, h) => sum + h.clean, 0)).toBe(10);
    expect(hours.reduce((sum, h) => sum + h.verify_failed, 0)).toBe(1);
    const days = await log.counts(ws, { bucket: "day", from: start - 86_400_000, to: clock.now() + 1 });
    expect(days).toHaveLength(2);
    expect(await log.topReasons(ws)).toEqual([{ reason: "a word of the text", count: 10 }]);
    clock.at += 1;
    await log.append(classify(ws, 0.5), settings());
    const [waiting] = (await log.list(ws, { limit: 1 })).verdicts;
    expect(await log.waitingForReview(ws)).toBe(1);
    const reviewed = await log.review(ws, waiting!.id, { state: "clean", by: "me", at: 1 });
    await log.review(ws, waiting!.id, { state: "spam", by: "you", at: 2 });
    expect(reviewed?.history).toEqual([{ state: "clean", by: "me", at: 1 }]);
    const again = await log.get(ws, waiting!.id);
    expect(again?.review).toBe("spam");
    expect(again?.history.map((h) => h.by)).toEqual(["me", "you"]);
    expect(await log.waitingForReview(ws)).toBe(0);
    // Every key of the log expires with it, the histories and the review set included.
    for (const key of Object.values(log.layout(ws)))
      expect([key, await redis.pttl(key)]).not.toEqual([key, -1]);
    expect(await log.review(ws, "v000000000AAAAAAAA", { state: "spam", by: "x", at: 1 })).toBeNull();
  });

  it("forgets a workspace's whole log in one call", async () => {
    const ws = workspace();
    await fill(ws, 5);
    await log.forget(ws);
    expect(await redis.exists(...Object.values(log.layout(ws)))).toBe(0);
    expect((await log.list(ws)).verdicts).toEqual([]);
  });

  it("exports page by page through an async generator", async () => {
    const ws = workspace();
    await fill(ws, 45);
    const ids: string[] = [];
    for await (const verdict of log.export(ws, { configId: "cfg_even" }, 10)) ids.push(verdict.id);
    expect(ids).toHaveLength(23);
  });
});
