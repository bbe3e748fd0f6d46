import { describe, expect, it } from "vitest";
import { MIN_RATIO, pruneByData, type ListText } from "./prune.ts";

const texts = (family: string, label: 0 | 1, lines: readonly string[]): ListText[] =>
  lines.map((line) => ({ family, label, tokens: line.split(" ") }));

describe("list pruning by the training data", () => {
  const data = [
    ...texts("sms", 1, ["buy cheap viagra now", "question about viagra", "cheap viagra here", "win money"]),
    ...texts("sms", 0, ["a question about dinner", "see you at the store", "what about tomorrow", "ok"]),
    ...texts("enquiries", 0, ["a question about opening hours", "is the store open", "thanks"]),
  ];

  it("drops an entry that clean messages use about as often as spam, and keeps a precise one", () => {
    const { kept, dropped } = pruneByData(["about", "cheap viagra", "store", "viagra"], data);
    expect(kept).toEqual(["cheap viagra", "viagra"]);
    expect(dropped.map((d) => d.entry).sort()).toEqual(["about", "store"]);
    const about = dropped.find((d) => d.entry === "about")!;
    expect(about.spamRate).toBeLessThan(MIN_RATIO * about.cleanRate);
  });

  it("drops entries the training spam never contains: the list's one weight was not learned on them", () => {
    expect(pruneByData(["casino bonus", "san pham"], data).kept).toEqual([]);
  });

  it("weighs each family the same: one large clean family cannot hide a word's clean use elsewhere", () => {
    const big = texts(
      "chat",
      0,
      Array.from({ length: 1000 }, () => "hello there"),
    );
    const { dropped } = pruneByData(["question"], [...data, ...big]);
    expect(dropped.map((d) => d.entry)).toEqual(["question"]);
  });
});
