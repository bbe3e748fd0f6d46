import { describe, expect, it } from "vitest";
import { canonicalText, words } from "../text.ts";
import { CAMPAIGNS, campaignSignals, compileCampaigns, firstCampaignMatch } from "./campaigns.ts";
import { linkSignals } from "./links.ts";
import { extractLinks } from "../links.ts";
import { foldText } from "./phrasing.ts";

const fired = (text: string): string[] => {
  const out: string[] = [];
  campaignSignals(words(canonicalText(text)), out);
  return out;
};

describe("known contact-form campaigns", () => {
  it("compiles the shipped fragments: phrases, terms and hosts, without garbled copies or phone numbers", () => {
    expect(CAMPAIGNS.phrases.size).toBeGreaterThan(50);
    expect(CAMPAIGNS.terms.size).toBeGreaterThan(30);
    expect(CAMPAIGNS.hosts.has("realhumanwebtraffic.top")).toBe(true);
    expect(CAMPAIGNS.hosts.has("youtube.com")).toBe(false);
    const all = [...CAMPAIGNS.phrases.values(), ...CAMPAIGNS.terms.values()].flat().map((p) => p.join(" "));
    expect(all.some((p) => p.includes("Ã") || /^[0 ]+$/.test(p))).toBe(false);
  });

  it("reads the price wave in many languages whatever the greeting, case or accents", () => {
    for (const wave of [
      "Hello, I wanted to know your price.",
      "Good morning! I WANTED TO KNOW YOUR PRICE",
      "Buenas, quería saber tu precio",
      "Ciao, volevo sapere il tuo prezzo.",
      "Szia, meg akartam tudni az árát.",
      "Γεια σας, ήθελα να μάθω την τιμή σας.",
      "Здравейте, исках да знам цената ви.",
    ])
      expect(fired(wave), wave).toContain("campaign:phrase");
  });

  it("keeps terms apart from phrases and counts distinct terms", () => {
    expect(fired("We sell backlinks")).toEqual(["campaign:terms:1"]);
    expect(fired("Backlinks and lead generation, backlinks again")).toEqual(["campaign:terms:2"]);
  });

  it("does not fire on an ordinary enquiry or a phone number", () => {
    for (const honest of [
      "Hello, how much is the room for two nights in June?",
      "Quería saber si tenéis la talla 42 del abrigo azul.",
      "Call me on (332) 555-0101, thanks.",
    ])
      expect(fired(honest), honest).toEqual([]);
  });

  it("names the phrase it found, for the reason's label", () => {
    expect(firstCampaignMatch(words(canonicalText("Hi! Volevo sapere il tuo prezzo")))).toBe(
      "volevo sapere il tuo prezzo",
    );
  });

  it("lists the campaigns' own sites, not the platforms they post on", () => {
    const list = compileCampaigns(["https://www.monkey-seo.example/x", "https://www.youtube.com/@spam"]);
    expect([...list.hosts]).toEqual(["monkey-seo.example"]);
    const raw = "More visits: http://realhumanwebtraffic.top/now";
    const { text, hosts, linkChars } = extractLinks(raw);
    const out: string[] = [];
    linkSignals({ raw, stripped: text, folded: foldText(text), hosts, linkChars, tokens: [] }, out);
    expect(out).toContain("link:listed");
  });
});
