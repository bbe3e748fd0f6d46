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

  it("makes each matched list entry a signal of its own, matched as words, not substrings", () => {
    expect(signals("cheap cialis and a casino")).toEqual(expect.arrayContaining(["wp:cialis", "wp:casino"]));
    expect(signals("The meeting is on Tuesday in room four").filter((s) => /^(?:wp|se):/.test(s))).toEqual(
      [],
    );
    expect(signals("specialisation").filter((s) => /^(?:wp|se):/.test(s))).toEqual([]);
  });

  it("ships the lists without the words honest messages use as often as spam (issue 44)", () => {
    // Each of these was on the comment-spam or keyword list and weighed like "buy viagra" in
    // honest enquiries; the lists are pruned on the training data (training/src/lists/prune.ts).
    const honest = signals(
      "Hello, a question about your store: is the number of groups for the workshop limited? Thanks",
    );
    expect(honest.filter((s) => /^(?:wp|se):/.test(s))).toEqual([]);
  });
});
