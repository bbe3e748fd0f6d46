import { describe, expect, it } from "vitest";
import { bodyBytes, spamAssassinFamilies, spamAssassinRules } from "./spamassassin.ts";

describe("SpamAssassin's compiled body rules", () => {
  it("fire their families on the advance-fee letter, the lottery win and the diet pitch", () => {
    expect(
      spamAssassinFamilies("Congratulations, you have won the lottery! Send your bank details to claim."),
    ).toContain("money");
    expect(spamAssassinFamilies("Lose weight fast: our dieting pills work with no exercise.")).toContain(
      "pharma",
    );
    expect(spamAssassinRules("I write to you as the next of kin of a late client of our bank.")).toContain(
      "__NEXT_OF_KIN",
    );
  });

  it("leave an ordinary enquiry alone in several languages", () => {
    for (const text of [
      "Can I book a table for Friday evening? We are four.",
      "¿Tenéis la talla 42 de estas botas? Gracias.",
      "Bonjour, est-ce que la boutique est ouverte le dimanche ?",
    ])
      expect(spamAssassinRules(text)).toEqual([]);
  });

  it("read a text as SpamAssassin does: UTF-8 bytes, white space made one space", () => {
    expect(bodyBytes("café\n\n  au lait")).toBe("caf\u00c3\u00a9 au lait");
    expect(bodyBytes("plain  text")).toBe("plain text");
  });
});
