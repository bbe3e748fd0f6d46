import { describe, expect, it } from "vitest";
import { extractLinks } from "../links.ts";
import { canonicalText, words } from "../text.ts";
import { foldText, phrasingSignals } from "./phrasing.ts";

const signals = (raw: string): string[] => {
  const { text, hosts, linkChars } = extractLinks(raw);
  const out: string[] = [];
  phrasingSignals(
    { raw, stripped: text, folded: foldText(text), hosts, linkChars, tokens: words(canonicalText(text)) },
    out,
  );
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
  it("reads the same ideas in other languages, accents or not (issue 51)", () => {
    expect(
      signals(
        "Hola, he visto su página web: posicionamiento SEO y diseño web. Presupuesto gratis sin compromiso.",
      ),
    ).toContain("outreach:3");
    expect(signals("Olá, vi o seu site. Criação de sites a preços baixos.")).toEqual(
      expect.arrayContaining(["outreach:3", "price-words"]),
    );
    expect(
      signals("Twoja strona nie jest na pierwszej stronie Google, oferujemy projektowanie stron"),
    ).toContain("outreach:3");
    expect(signals("¡Gana dinero desde casa! Haz clic aquí")).toContain("lures:2");
    expect(signals("Guadagna soldi oggi, clicca qui, offerta limitata")).toContain("lures:3");
    expect(signals("𝐂𝐥𝐢𝐜𝐤 𝐡𝐞𝐫𝐞 to claim your prize")).toContain("lures:2");
    for (const honest of [
      "Quisiera reservar una mesa para cuatro el sábado.",
      "Bom dia, a minha encomenda ainda não chegou.",
      "Goedemiddag, mijn bestelling is nog niet aangekomen.",
    ])
      expect(signals(honest), honest).toEqual([]);
  });
});
