import { describe, expect, it } from "vitest";
import { canonicalText, words } from "../text.ts";
import { nameSignals } from "./name.ts";

const signals = (name: string): string[] => {
  const out: string[] = [];
  nameSignals(name, words(canonicalText(name)), out);
  return out;
};

describe("name signals", () => {
  it("says nothing about an ordinary name", () => {
    expect(signals("Anna Keller")).toEqual([]);
    expect(signals("Maria de la Cruz")).toEqual([]);
  });

  it("sees a business or keyword where a person's name belongs", () => {
    expect(signals("QuickBooks Support")).toContain("name:brand-word");
    expect(signals("Best SEO Agency London UK Services")).toContain("name:many-words");
  });

  it("sees a link, an address, digits and capitals in the name", () => {
    expect(signals("cheap-loans.online")).toContain("name:link");
    expect(signals("https://x.example.com")).toContain("name:link");
    expect(signals("bob@x.com")).toContain("name:at-sign");
    expect(signals("Crytoking2024")).toContain("name:digits");
    expect(signals("CASHNOW")).toContain("name:capitals");
  });
});
