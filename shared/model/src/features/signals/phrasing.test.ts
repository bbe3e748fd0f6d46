import { describe, expect, it } from "vitest";
import { extractLinks } from "../links.ts";
import { canonicalText, words } from "../text.ts";
import { phrasingSignals } from "./phrasing.ts";

const signals = (raw: string): string[] => {
  const { text, hosts, linkChars } = extractLinks(raw);
  const out: string[] = [];
  phrasingSignals({ raw, stripped: text, hosts, linkChars, tokens: words(canonicalText(text)) }, out);
  return out;
};

describe("phrasing signals", () => {
  it("finds money, prices and discounts", () => {
    expect(signals("We build websites from $299.")).toContain("money");
    expect(signals("Get 50% off today")).toContain("discount");
    expect(signals("affordable packages")).toContain("price-words");
    const order = signals("I ordered a blue jacket last week");
    for (const s of ["money", "discount", "price-words"]) expect(order).not.toContain(s);
  });

  it("counts the different elements of an outreach pitch", () => {
    expect(
      signals("I noticed your website is not ranking on the first page of Google. Our SEO brings traffic."),
    ).toContain("outreach:3");
    expect(signals("Quick question about the opening hours")).toContain("outreach:1");
    expect(signals("Could you tell me whether the workshop still has places?")).toEqual([]);
  });

  it("tells praise followed by a link from praise alone", () => {
    expect(signals("Great post, thanks! https://cheap-pills.example.xyz")).toContain("praise+link");
    expect(signals("Great post, thanks!")).toContain("praise");
    expect(signals("Great post, thanks!")).not.toContain("praise+link");
  });

  it("counts phrases of the shipped comment-spam and keyword lists as words, not substrings", () => {
    expect(signals("buy cheap viagra online and cialis").some((s) => s.startsWith("wp-phrases:"))).toBe(true);
    expect(signals("The meeting is on Tuesday in room four").some((s) => s.startsWith("wp-phrases:"))).toBe(
      false,
    );
  });

  it("ships the lists without the words honest messages use (issue 44)", () => {
    // Each of these was on the comment-spam or keyword list, and every entry shared one weight,
    // so in an honest enquiry they weighed like "buy viagra". The lists are pruned on the
    // training data (training/src/lists/prune.ts).
    const honest = signals(
      "Hello I am asking about your store: is the price per person, and is the number of groups limited? Thanks",
    );
    expect(honest.filter((s) => s.startsWith("wp-phrases:") || s.startsWith("se-keywords:"))).toEqual([]);
  });
});
