import { describe, expect, it } from "vitest";
import { languageList, Languages } from "./languages.ts";

describe("a workspace's languages", () => {
  it("takes distinct ISO 639-1 codes, [] included, and refuses the rest naming the code", () => {
    expect(Languages.parse([])).toEqual([]);
    expect(Languages.parse(["es", "en", "zu"])).toEqual(["es", "en", "zu"]);
    for (const [codes, message] of [
      [["xx"], '"xx" is not an ISO 639-1 language code'],
      [["ES"], '"ES" is not an ISO 639-1 language code'],
      [["spa"], '"spa" is not an ISO 639-1 language code'],
      [["sh"], '"sh" is not an ISO 639-1 language code'],
      [["es", "es"], "each language at most once"],
      [Array.from({ length: 21 }, () => "es"), "at most 20 languages"],
    ] as const) {
      const result = Languages.safeParse(codes);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toContain(message);
    }
  });

  it("reads a typed list: commas or spaces, any case, blanks dropped", () => {
    expect(languageList(" es, EN  pt,,")).toEqual(["es", "en", "pt"]);
    expect(languageList("")).toEqual([]);
  });
});
