import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ListStore, listMember, type ListEntry } from "../src/index.ts";

let redis: Redis;
/** A clock the test moves by hand. */
const clock = {
  at: 1_700_000_000_000,
  now() {
    return this.at;
  },
  advance(ms: number) {
    this.at += ms;
  },
};
let store: ListStore;
let n = 0;
const workspace = () => `ws_liststore_${process.pid}_${++n}`;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  store = new ListStore({ redis, clock, prefix: `test:${process.pid}:` });
});
afterAll(() => redis?.quit());

const phrase = (value: string): ListEntry => ({ kind: "block", type: "phrase", value });
const values = (entries: ListEntry[]) => entries.map((e) => e.value);

/** Every page of `size` rows, joined: what paging through the whole list shows. */
const allPages = async (
  read: (start: number, count: number) => Promise<ListEntry[]>,
  total: number,
  size: number,
) => {
  const seen: ListEntry[] = [];
  for (let start = 0; start < total; start += size) seen.push(...(await read(start, size)));
  return values(seen);
};

describe("the list store", () => {
  it("pages in the order entries were added either way, those with no record counting as oldest", async () => {
    const ws = workspace();
    // Three added before who/when was recorded, then five, one a second.
    await store.addListEntries(ws, ["u-c", "u-a", "u-b"].map(phrase));
    for (const v of ["d-1", "d-2", "d-3", "d-4", "d-5"]) {
      clock.advance(1000);
      await store.addListEntries(ws, [phrase(v)], "ann@example.com");
    }
    const oldest = ["u-a", "u-b", "u-c", "d-1", "d-2", "d-3", "d-4", "d-5"];
    const newest = ["d-5", "d-4", "d-3", "d-2", "d-1", "u-c", "u-b", "u-a"];
    for (const size of [1, 2, 3, 5, 8, 20]) {
      expect(await allPages((start, count) => store.listRangeByAdded(ws, { start, count }), 8, size)).toEqual(
        oldest,
      );
      expect(
        await allPages(
          (start, count) => store.listRangeByAdded(ws, { start, count, descending: true }),
          8,
          size,
        ),
      ).toEqual(newest);
    }
    expect(await store.listRangeByAdded(ws, { start: 50, count: 10 })).toEqual([]);
  });

  it("pages by list, type and value, and counts", async () => {
    const ws = workspace();
    await store.addListEntries(ws, [
      { kind: "block", type: "phrase", value: "b" },
      { kind: "allow", type: "email", value: "a@x.example" },
      { kind: "block", type: "domain", value: "z.example" },
      { kind: "block", type: "phrase", value: "a" },
    ]);
    expect(await store.listSize(ws)).toBe(4);
    const all = await store.listRange(ws, { start: 0, count: 10 });
    expect(all.map(listMember)).toEqual([
      "allow|email|a@x.example",
      "block|domain|z.example",
      "block|phrase|a",
      "block|phrase|b",
    ]);
    expect(values(await store.listRange(ws, { start: 1, count: 2, descending: true }))).toEqual([
      "a",
      "z.example",
    ]);
  });

  it("searches with Redis, taking glob characters literally", async () => {
    const ws = workspace();
    await store.addListEntries(ws, ["win a prize", "win * now", "w?n", "[x]", "back\\slash"].map(phrase));
    expect(values(await store.searchLists(ws, "WIN")).sort()).toEqual(["win * now", "win a prize"]);
    expect(values(await store.searchLists(ws, "*"))).toEqual(["win * now"]);
    expect(values(await store.searchLists(ws, "?"))).toEqual(["w?n"]);
    expect(values(await store.searchLists(ws, "[x"))).toEqual(["[x]"]);
    expect(values(await store.searchLists(ws, "\\s"))).toEqual(["back\\slash"]);
  });

  it("keeps the first record of an entry added twice and forgets it when the entry goes", async () => {
    const ws = workspace();
    await store.updateList(ws, "add", phrase("twice"), "ann@example.com");
    clock.advance(5000);
    await store.updateList(ws, "add", phrase("twice"), "bob@example.com");
    const [first] = (await store.listAdded(ws, [phrase("twice")])).values();
    expect(first).toEqual({ by: "ann@example.com", at: clock.now() - 5000 });
    await store.updateList(ws, "remove", phrase("twice"));
    expect((await store.listAdded(ws)).size).toBe(0);
    expect(await store.listRangeByAdded(ws, { start: 0, count: 10 })).toEqual([]);
    await store.updateList(ws, "add", phrase("twice"), "bob@example.com");
    expect([...(await store.listAdded(ws)).values()]).toEqual([{ by: "bob@example.com", at: clock.now() }]);
  });
});
