import { describe, expect, it } from "vitest";
import { styleSignals } from "./style.ts";

const signals = (raw: string): string[] => {
  const out: string[] = [];
  styleSignals(raw, out);
  return out;
};

describe("style signals", () => {
  it("tells shouting from an acronym", () => {
    expect(signals("CALL NOW TO CLAIM YOUR PRIZE TODAY")).toContain("shouting");
    expect(signals("I work at the NHS and need a quote for the BBQ")).not.toContain("shouting");
  });

  it("finds runs of ! and ?", () => {
    expect(signals("Win now!!!")).toContain("punctuation-run");
    expect(signals("Win now!")).not.toContain("punctuation-run");
  });

  it("sees Latin and Cyrillic letters mixed inside one word (homoglyph dodging)", () => {
    expect(signals("frее money")).toContain("mixed-script-word");
    expect(signals("Привет, hello")).toContain("mixed-scripts");
    expect(signals("hello there")).toEqual([]);
  });

  it("finds repetition and gibberish", () => {
    expect(signals(Array(6).fill("buy cheap pills").join(" "))).toContain("repetition");
    expect(signals("xkqzvbt plmrtsk wqrtzpl hello")).toContain("gibberish");
    expect(signals("Thank you for the wonderful evening yesterday")).not.toContain("gibberish");
    expect(signals("aaaabbbbccccddddeeeeffffgggghhhhiiii")).toContain("long-token");
  });
});
