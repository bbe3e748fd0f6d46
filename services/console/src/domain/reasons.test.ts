import { describe, expect, it } from "vitest";
import { groupReasons, keyText, personText } from "./reasons.ts";

describe("reasons a person can use", () => {
  it("groups the words that pushed each way, naming them where the log kept them", () => {
    const groups = groupReasons([
      { signal: "word", weight: 0.9, field: "message", label: "“backlinks”" },
      { signal: "link_site", weight: 1.4, label: "a link to bit.ly" },
      { signal: "word", weight: 0.4, field: "message", label: "“cheap”" },
      { signal: "word", weight: -0.5, field: "message", label: "a word of the text" },
      { signal: "word", weight: -0.2, field: "message", label: "a word of the text" },
    ]);
    expect(groups.map((g) => [g.direction, g.text, g.words?.map((w) => w.word)])).toEqual([
      ["spam", "a link to bit.ly", undefined],
      ["spam", "the words", ["backlinks", "cheap"]],
      ["clean", "2 words of the text", []],
    ]);
    expect(groups[1]!.weight).toBeCloseTo(1.3);
  });

  it("never shows a code, and leaves out list hits made of ordinary words", () => {
    const groups = groupReasons([
      { signal: "mixed_scripts", weight: 0.3, label: "mixed-scripts" },
      { signal: "email_tld_cheap", weight: 0.2, label: "email:tld:cheap" },
      { signal: "brand_new_signal", weight: 0.1, label: "brand:new-signal" },
      { signal: "listed_phrase", weight: -0.3, label: "listed phrase: hello my" },
      { signal: "listed_phrase", weight: 0.3, label: "listed phrase: free seo" },
      { signal: "language", weight: 0.2, label: "language:xx" },
    ]);
    expect(groups.map((g) => g.text)).toEqual([
      "letters of several alphabets mixed together",
      "listed phrase: free seo",
      "an e-mail address on a cheap top-level domain",
      "the language of the text",
      "a signal without a description yet",
    ]);
    expect(personText("mixed-scripts")).toBe("letters of several alphabets mixed together");
    expect(keyText("email:tld:cheap")).toBe("an e-mail address on a cheap top-level domain");
    expect(keyText("a word of the text")).toBe("a word of the text");
  });
});
