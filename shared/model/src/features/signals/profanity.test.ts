import type { NormalizedField } from "@sift/contracts";
import { describe, expect, it } from "vitest";
import { featurize, NEXT_FEATURIZER_VERSION, type FieldTrace } from "../featurize.ts";
import { canonicalText, words } from "../text.ts";
import { PROFANITY, profanitySignals } from "./profanity.ts";

const fired = (text: string): boolean => {
  const out: string[] = [];
  profanitySignals(words(canonicalText(text)), out);
  return out.includes("profanity");
};

/** Every signal a whole submission fires, from the featuriser's own trace. */
const signalsOf = (fields: NormalizedField[]): string[] => {
  const traces: FieldTrace[] = [];
  featurize(fields, traces, NEXT_FEATURIZER_VERSION);
  return traces.flatMap((t) => t.signals);
};

describe("profanity (naughty-words, CC-BY-4.0)", () => {
  it("fires on abuse in several languages, whatever the case or accents", () => {
    for (const text of [
      "You stupid FUCKING idiot, answer my email",
      "Co za kurwa, nikt nie odpisuje",
      "Vaffanculo, il pacco non è mai arrivato",
      "Du Hurensohn, wo ist mein Geld",
      "иди на хуй со своим магазином",
      "Te egy kurva vagy",
      "Sei un figlio di puttana",
    ])
      expect({ text, fired: fired(text) }).toEqual({ text, fired: true });
  });

  it("compares whole words: a listed word inside another never fires", () => {
    for (const text of [
      "We are a family hotel near Scunthorpe, do you deliver there?",
      "I am the assistant manager of the Middlesex branch and would like a quote.",
      "Please send the cocktail menu and the classic wines to Essex.",
      "The analysis of the grapes from Arsenal Road is attached.",
      "Our therapist recommends a shitake-free diet; do you have mushroom-free dishes?",
    ])
      expect({ text, fired: fired(text) }).toEqual({ text, fired: false });
  });

  it("leaves names, clinical words and other languages' ordinary words alone", () => {
    for (const text of [
      "I bought the charger at Dick Smith and it broke after a week.",
      "Dear Dr. Cock, my appointment for the breast cancer screening needs moving.",
      "After the surgery I have pain around the anus and rectum; can the nurse call me?",
      "Does the ointment help with a sore nipple while breastfeeding?",
      "Is the clinic open for penis and vagina examinations on Saturday?",
      "Is sex education part of the course for teenagers?",
      "Bitte schicken Sie mir die Rechnung noch einmal.",
      "Quero comer no restaurante com a minha mãe no sábado.",
      "Vreau o cameră cu vedere la mare, vă rog.",
      "¿Tenéis el bolso negro en la talla grande? Es para un regalo.",
      "Vorrei ordinare il pesce del giorno per sei persone.",
      "Bonjour, c'est pour un gâteau d'anniversaire con crème.",
      "We keep a rooster and a few hens; can your vet see a cock with a sore leg?",
      "Our daughter Regina and her friend Anita would like to join the class.",
    ])
      expect({ text, fired: fired(text) }).toEqual({ text, fired: false });
  });

  it("is no honest twin's only signal: whole submissions of them fire nothing by it", () => {
    const twin: NormalizedField[] = [
      ["name", "Dick Smith"],
      ["email", "dick.smith@example.org"],
      ["message", "Hi, I'm a medical assistant in Scunthorpe; do you sell breast pumps? Thanks"],
    ];
    expect(signalsOf(twin)).not.toContain("profanity");
  });

  it("ships a list: one lookup per word, no entry shorter than four letters", () => {
    expect(PROFANITY.phrases.size).toBeGreaterThan(1000);
    for (const entry of PROFANITY.phrases)
      expect([...entry.replace(/ /g, "")].length).toBeGreaterThanOrEqual(4);
  });
});
