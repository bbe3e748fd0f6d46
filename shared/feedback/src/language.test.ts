import { beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import type { NormalizedField } from "@sift/contracts";
import { loadLanguageIdentifier, type LanguageIdentifier } from "@sift/model/language";
import {
  expectedLanguages,
  languageSignal,
  MAX_UNEXPECTED_WEIGHT,
  MIN_HISTORY,
  profileOf,
  scriptOf,
  unexpectedWeight,
  writingOf,
} from "./language.ts";
import { personalize } from "./personalize.ts";

const form = (message: string): NormalizedField[] => [
  ["name", "Ann Lee"],
  ["email", "ann@example.com"],
  ["message", message],
];
const ENGLISH = "Hello, is the oak dining table still available? I could pick it up on Saturday morning.";
const GEORGIAN = "გამარჯობა, გთავაზობთ ძალიან იაფ სესხს ყოველგვარი შემოწმების გარეშე, დაგვიკავშირდით დღესვე";
const RUSSIAN = "Здравствуйте, хочу спросить про доставку мебели в Москву на этой неделе, спасибо";
const FRENCH = "Bonjour, je voudrais savoir si la table en chêne est encore disponible pour samedi matin";
const SPANISH = "Hola, quería saber si la mesa de roble sigue disponible y cuánto cuesta el envío a Sevilla";
const POLISH = "Dzień dobry, oferujemy pozycjonowanie strony i kampanie reklamowe w bardzo dobrej cenie";

/** A profile as the store returns it, from counted clean messages (and spam's languages). */
const profile = (
  scripts: Record<string, number>,
  languages: Record<string, number>,
  spamLanguages: Record<string, number> = {},
) =>
  profileOf({
    ...Object.fromEntries(Object.entries(scripts).map(([k, v]) => [`s:${k}`, String(v)])),
    ...Object.fromEntries(Object.entries(languages).map(([k, v]) => [`l:${k}`, String(v)])),
    ...Object.fromEntries(Object.entries(spamLanguages).map(([k, v]) => [`x:${k}`, String(v)])),
  });

let eld: LanguageIdentifier;
beforeAll(async () => {
  eld = await loadLanguageIdentifier();
});

describe("the language signal", () => {
  it("reads a message's script and language (eld), not the name or the address", () => {
    expect(writingOf(form(ENGLISH), eld)).toMatchObject({ script: "Latn", language: "en" });
    expect(writingOf(form(RUSSIAN), eld)).toMatchObject({ script: "Cyrl", language: "ru" });
    expect(writingOf(form(RUSSIAN))).toEqual(expect.not.objectContaining({ language: expect.anything() }));
    expect(scriptOf(GEORGIAN)?.script).toBe("Geor");
    expect(writingOf(form("Thanks!"), eld)).toBeNull();
  });

  it("names a script the site never received, strongly, once its history is long enough", () => {
    // Counted by franc-min, before eld ("eng"): the same English.
    const english = profile({ Latn: 120 }, { eng: 110 });
    const signal = languageSignal(form(GEORGIAN), { profile: english, identifier: eld })!;
    expect(signal.signal).toBe("new_script");
    expect(signal.weight).toBeGreaterThanOrEqual(4);
    expect(signal.label).toBe("written in Georgian; this site receives English");
    expect(languageSignal(form(ENGLISH), { profile: english, identifier: eld })).toBeNull();
    const short = profile({ Latn: MIN_HISTORY - 1 }, { en: MIN_HISTORY - 1 });
    expect(languageSignal(form(GEORGIAN), { profile: short })).toBeNull();
  });

  it("says a language the site does not receive, learned from its clean reviews, with its own weight", () => {
    const english = profile({ Latn: 200 }, { en: 195, fr: 1 });
    const signal = languageSignal(form(FRENCH), { profile: english, identifier: eld })!;
    expect(signal.signal).toBe("unexpected_language");
    expect(signal.weight).toBeGreaterThan(0);
    expect(signal.weight).toBeLessThanOrEqual(MAX_UNEXPECTED_WEIGHT);
    expect(signal.label).toBe("written in French; this site receives English");
    expect(languageSignal(form(ENGLISH), { profile: english, identifier: eld })).toBeNull();
    expect(languageSignal(form("Привет!"), { profile: english, identifier: eld })).toBeNull();
    // Without an identifier no language is read: only a new script could say anything.
    expect(languageSignal(form(FRENCH), { profile: english })).toBeNull();
  });

  it("follows the site's stated languages before any review, and over what it learned", () => {
    const stated = ["es", "en"];
    const signal = languageSignal(form(POLISH), { profile: null, stated, identifier: eld })!;
    expect(signal).toMatchObject({
      signal: "unexpected_language",
      label: "written in Polish; this site receives Spanish and English",
    });
    for (const message of [SPANISH, ENGLISH])
      expect(languageSignal(form(message), { profile: null, stated, identifier: eld })).toBeNull();
    // A site that states Georgian is not surprised by its first Georgian message.
    const english = profile({ Latn: 120 }, { en: 120 });
    expect(
      languageSignal(form(GEORGIAN), { profile: english, stated: ["en", "ka"], identifier: eld }),
    ).toBeNull();
    // Indonesian is read as Malay by eld, which does not know it: a site stating "id" receives it.
    expect(expectedLanguages(["id"], null)).toEqual(["ms"]);
  });

  it("on a multilingual site, says nothing of the languages it receives and no new script at all", () => {
    const mixed = profile({ Latn: 120, Cyrl: 80 }, { en: 60, fr: 60, ru: 80 });
    for (const message of [RUSSIAN, FRENCH, ENGLISH])
      expect(languageSignal(form(message), { profile: mixed, identifier: eld })).toBeNull();
    // Georgian is a language it never received, told as that (weak), not as a new script (strong).
    expect(languageSignal(form(GEORGIAN), { profile: mixed, identifier: eld })).toMatchObject({
      signal: "unexpected_language",
      label: "written in Georgian; this site receives Russian, English and French",
    });
  });

  it("identifies a language only where the signal could change the label", () => {
    let calls = 0;
    const counting: LanguageIdentifier = {
      identify: (text) => {
        calls++;
        return eld.identify(text);
      },
    };
    const english = profile({ Latn: 200 }, { en: 200 });
    expect(
      languageSignal(form(FRENCH), { profile: english, identifier: counting, matters: () => false }),
    ).toBeNull();
    expect(calls).toBe(0);
    expect(languageSignal(form(FRENCH), { profile: english, identifier: counting })).not.toBeNull();
    expect(calls).toBe(1);
  });
});

describe("unexpected_language's weight", () => {
  it("starts from its prior and follows where the site's spam and clean messages are written", () => {
    const prior = unexpectedWeight(null, ["en"]);
    expect(prior).toBeCloseTo(Math.log(10 / 3), 6);
    // Its spam is mostly in other languages, its clean mail never: the weight grows to its cap.
    const foreignSpam = profile({ Latn: 300 }, { en: 300 }, { ru: 40, pl: 30, en: 10 });
    expect(unexpectedWeight(foreignSpam, ["en"])).toBe(MAX_UNEXPECTED_WEIGHT);
    // Its honest visitors write in other languages more often than its spammers: no weight at all.
    const travellers = profile({ Latn: 300 }, { en: 150, de: 150 }, { en: 60, de: 30 });
    expect(unexpectedWeight(travellers, ["en"])).toBe(0);
  });

  it("never makes a verdict on its own: a message the model scores under 0.35 stays under 0.8", () => {
    const english = profile({ Latn: 200 }, { en: 200 }, { ru: 80, pl: 80 });
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.35, noNaN: true }), (baseScore) => {
        const verdict = personalize({
          baseScore,
          ids: [],
          fields: form(POLISH),
          state: { version: 1, own: null, lists: [], languages: english },
          shared: null,
          languageIdentifier: eld,
        });
        return verdict.score < 0.8;
      }),
    );
    // Where the model already leans to spam, it can carry the message over 0.8, and says why.
    const verdict = personalize({
      baseScore: 0.6,
      ids: [],
      fields: form(POLISH),
      state: { version: 1, own: null, lists: [], languages: english },
      shared: null,
      languageIdentifier: eld,
    });
    expect(verdict.score).toBeGreaterThanOrEqual(0.8);
    expect(verdict.reasons).toContainEqual(
      expect.objectContaining({
        signal: "unexpected_language",
        label: "written in Polish; this site receives English",
      }),
    );
  });
});
