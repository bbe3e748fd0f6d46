import { describe, expect, it } from "vitest";
import type { NormalizedField } from "@sift/contracts";
import { languageSignal, MIN_HISTORY, profileOf, scriptOf, writingOf } from "./language.ts";

const form = (message: string): NormalizedField[] => [
  ["name", "Ann Lee"],
  ["email", "ann@example.com"],
  ["message", message],
];
const ENGLISH = "Hello, is the oak dining table still available? I could pick it up on Saturday morning.";
const GEORGIAN = "გამარჯობა, გთავაზობთ ძალიან იაფ სესხს ყოველგვარი შემოწმების გარეშე, დაგვიკავშირდით დღესვე";
const RUSSIAN = "Здравствуйте, хочу спросить про доставку мебели в Москву на этой неделе, спасибо";
const FRENCH = "Bonjour, je voudrais savoir si la table en chêne est encore disponible pour samedi matin";

/** A profile as the store returns it, from counted clean messages. */
const profile = (scripts: Record<string, number>, languages: Record<string, number>) =>
  profileOf({
    ...Object.fromEntries(Object.entries(scripts).map(([k, v]) => [`s:${k}`, String(v)])),
    ...Object.fromEntries(Object.entries(languages).map(([k, v]) => [`l:${k}`, String(v)])),
  });

describe("the language signal", () => {
  it("reads a message's script and language (franc-min), not the name or the address", () => {
    expect(writingOf(form(ENGLISH))).toMatchObject({ script: "Latn", language: "eng" });
    expect(writingOf(form(RUSSIAN))).toMatchObject({ script: "Cyrl", language: "rus" });
    expect(scriptOf(GEORGIAN)?.script).toBe("Geor");
    expect(writingOf(form("Thanks!"))).toBeNull();
  });

  it("names a script the site never received, strongly, once its history is long enough", () => {
    const english = profile({ Latn: 120 }, { eng: 110 });
    const signal = languageSignal(form(GEORGIAN), english)!;
    expect(signal.signal).toBe("new_script");
    expect(signal.weight).toBeGreaterThanOrEqual(4);
    expect(signal.label).toBe("written in Georgian; this site receives English");
    expect(languageSignal(form(ENGLISH), english)).toBeNull();
  });

  it("says a rare language weakly, and nothing for a short message or a short history", () => {
    const english = profile({ Latn: 200 }, { eng: 195, fra: 1 });
    const signal = languageSignal(form(FRENCH), english)!;
    expect(signal.signal).toBe("rare_language");
    expect(signal.weight).toBeLessThanOrEqual(1);
    expect(signal.label).toBe("written in French; this site receives English");
    expect(languageSignal(form("Привет!"), english)).toBeNull();
    expect(
      languageSignal(form(GEORGIAN), profile({ Latn: MIN_HISTORY - 1 }, { eng: MIN_HISTORY - 1 })),
    ).toBeNull();
  });

  it("says nothing at all on a multilingual site", () => {
    // Latin and Cyrillic both common: neither a new script nor a rare language is a signal here.
    const mixed = profile({ Latn: 120, Cyrl: 80 }, { eng: 60, fra: 60, rus: 80 });
    for (const message of [GEORGIAN, RUSSIAN, FRENCH, ENGLISH])
      expect(languageSignal(form(message), mixed)).toBeNull();
    // One script, several languages: a new script still counts, a language never does.
    const latin = profile({ Latn: 200 }, { eng: 70, fra: 65, deu: 65 });
    expect(languageSignal(form(FRENCH), latin)).toBeNull();
  });
});
