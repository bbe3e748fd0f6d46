import type { NormalizedField } from "@sift/contracts";
import { describe, expect, it } from "vitest";
import { featurize, NEXT_FEATURIZER_VERSION, type FieldTrace } from "../featurize.ts";
import {
  bodyBytes,
  SELECTED_RULES,
  spamAssassinAllRules,
  spamAssassinFamilies,
  spamAssassinRules,
} from "./spamassassin.ts";

const signalsOf = (fields: NormalizedField[], version = NEXT_FEATURIZER_VERSION): string[] => {
  const traces: FieldTrace[] = [];
  featurize(fields, traces, version);
  return traces.flatMap((t) => t.signals);
};

describe("SpamAssassin's compiled body rules", () => {
  it("fire their families on the advance-fee letter and the diet pitch", () => {
    expect(spamAssassinFamilies("Lose weight fast: our dieting pills work with no exercise.")).toContain(
      "pharma",
    );
    expect(spamAssassinRules("I write to you as the next of kin of a late client of our bank.")).toContain(
      "__NEXT_OF_KIN",
    );
  });

  it("fire only the rules selected on the training data", () => {
    // The lottery sub-rule fires on honest rows too often (rules/select.ts): compiled, not fired.
    const text = "Congratulations, you have won the lottery! Send your bank details to claim.";
    expect(spamAssassinAllRules(text)).toContain("__AFF_LOTTERY");
    expect(SELECTED_RULES.has("__AFF_LOTTERY")).toBe(false);
    expect(spamAssassinRules(text)).not.toContain("__AFF_LOTTERY");
    expect(SELECTED_RULES.size).toBeGreaterThan(50);
  });

  it("find a rule's key across case and runs of white space, as the body bytes hold it", () => {
    for (const text of ["claim the money", "CLAIM  THE\n\n MONEY", "\u00a0claim the\tmoney now"])
      expect({ text, fired: spamAssassinAllRules(text).includes("__FRAUD_KJV") }).toEqual({
        text,
        fired: true,
      });
    expect(spamAssassinAllRules("claim the moneybox")).toContain("__FRAUD_KJV");
    expect(spamAssassinAllRules("claim the mon ey")).not.toContain("__FRAUD_KJV");
  });

  it("decide on the UTF-8 bytes once a key is found: a byte escape reads as SpamAssassin reads it", () => {
    // \bI won(?!\xe2\x80\x99t): "won’t" with a typographic apostrophe is three bytes after "won".
    expect(spamAssassinAllRules("Guess what, I won a car")).toContain("__YOU_WON_05");
    expect(spamAssassinAllRules("Sorry, I won’t be home on Friday")).not.toContain("__YOU_WON_05");
  });

  it("leave an ordinary enquiry alone in several languages", () => {
    for (const text of [
      "Can I book a table for Friday evening? We are four.",
      "Can you help me change my booking? I can help with the paperwork.",
      "My late father was a client of your bank; I am the executor of his will.",
      "I'd like my money back for the broken lamp, it was 45 dollars.",
      "¿Tenéis la talla 42 de estas botas? Gracias.",
      "Bonjour, est-ce que la boutique est ouverte le dimanche ?",
      "Olá, vocês entregam em Braga? Quanto custa o envio?",
    ])
      expect({ text, rules: spamAssassinRules(text) }).toEqual({ text, rules: [] });
  });

  it("are fired by featuriser 7 as one signal per family, none for an honest enquiry", () => {
    const spam: NormalizedField[] = [
      ["name", "Barrister James"],
      ["email", "james@example.net"],
      [
        "message",
        "I write to you as the next of kin of a late client of our bank. Reply to claim the money.",
      ],
    ];
    expect(signalsOf(spam).filter((s) => s.startsWith("sa:"))).toContain("sa:advance_fee");
    // Featuriser 6 does not fire them: its model was never trained on them.
    expect(signalsOf(spam, 6).filter((s) => s.startsWith("sa:"))).toEqual([]);
    const honest: NormalizedField[] = [
      ["name", "Ana"],
      ["email", "ana@example.org"],
      ["message", "Hello, can you help me with my order? I paid for two mugs and got one. Thanks"],
    ];
    expect(signalsOf(honest).filter((s) => s.startsWith("sa:"))).toEqual([]);
  });

  it("fire a family only when two or more rules match: one phrase rule is what an honest enquiry hits", () => {
    const honest = [
      "Do you run a weight loss programme at the gym, and how much is it a month?",
      'The parcel arrived broken. Your returns page says "click here to start a return" but nothing happens.',
      "Does the mattress come with a money back guarantee if it does not suit my back?",
      "Thank you for your assistance last week, the boiler works perfectly now.",
      "Hello, I am a travel agent booking for a group of 12 in May. Do you offer group rates?",
      "Hi, I found your bakery on Instagram. Do you make gluten-free birthday cakes?",
    ];
    for (const text of honest) {
      // Each matches one selected rule, and so fires no family.
      expect({ text, rules: spamAssassinRules(text).length }).toEqual({ text, rules: 1 });
      expect({ text, fired: signalsOf([["message", text]]).filter((s) => s.startsWith("sa:")) }).toEqual({
        text,
        fired: [],
      });
    }
    const spam = "Lose weight fast without exercise! 100% GUARANTEED results, click here to order now.";
    expect(signalsOf([["message", spam]]).filter((s) => s.startsWith("sa:"))).toEqual(
      expect.arrayContaining(["sa:pharma", "sa:phrases", "sa:other"]),
    );
  });

  it("read a text as SpamAssassin does: UTF-8 bytes, white space made one space", () => {
    expect(bodyBytes("café\n\n  au lait")).toBe("caf\u00c3\u00a9 au lait");
    expect(bodyBytes("plain  text")).toBe("plain text");
  });
});
