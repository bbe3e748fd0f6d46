import { describe, expect, it } from "vitest";
import { learnedLanguages, loadLanguageIdentifier, unexpectedLanguage } from "./index.ts";

describe("language as evidence", () => {
  it("identifies the languages sites write in, and says nothing of a name or two words", async () => {
    const id = await loadLanguageIdentifier();
    const cases: Array<[string, string]> = [
      ["en", "Hello, is the room still free for the weekend of 14 June? We are two adults and a dog."],
      ["es", "Hola, quería saber si tenéis disponibilidad para el fin de semana del 14 de junio."],
      ["pt", "Olá, gostaria de saber se vocês entregam em Lisboa e qual é o prazo de entrega."],
      ["it", "Buongiorno, vorrei sapere se la camera è ancora disponibile per il fine settimana."],
      ["pl", "Dzień dobry, chciałbym zapytać o cenę wynajmu sali na sobotę wieczorem."],
      ["ro", "Bună ziua, aș dori să știu dacă livrați și în Cluj și cât costă transportul."],
      ["ca", "Bon dia, voldria saber si teniu habitacions lliures per al cap de setmana."],
      ["nl", "Goedendag, ik wil graag weten of u ook naar België levert en wat het kost."],
    ];
    for (const [language, text] of cases) expect(id.identify(text).language, text).toBe(language);
    expect(id.identify("Ana").language).toBeUndefined();
    expect(id.identify("ok thx").language).toBeUndefined();
  });

  it("labels a language the site does not receive, in words, and nothing else", () => {
    expect(unexpectedLanguage("pl", ["es", "en"])).toEqual({
      signal: "unexpected_language",
      label: "written in Polish; this site receives Spanish and English",
    });
    expect(unexpectedLanguage("en", ["es", "en"])).toBeUndefined();
    expect(unexpectedLanguage(undefined, ["es"])).toBeUndefined();
    expect(unexpectedLanguage("pl", [])).toBeUndefined();
    expect(unexpectedLanguage("de", ["fr", "it", "en"])?.label).toBe(
      "written in German; this site receives French, Italian and English",
    );
  });

  it("learns a site's languages from its clean reviews once there are enough of them", () => {
    expect(learnedLanguages({ es: 10, en: 2 })).toEqual([]);
    expect(learnedLanguages({ es: 40, en: 8, pl: 1 })).toEqual(["es", "en"]);
    expect(learnedLanguages({ pt: 19, en: 1 })).toEqual(["pt", "en"]);
  });
});
