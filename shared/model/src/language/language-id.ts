import type { Identified, LanguageIdentifier } from "./language.ts";

/**
 * Language identification with eld (Efficient Language Detector, Apache-2.0, 60 languages),
 * its "small" database: the same answers as "large" on the project's test sentences at about
 * 60 µs a message rather than 100 (docs/model/form-spam.md), and ~170 MB of memory rather than
 * ~420. Loaded on first use, not at import: the featuriser never needs it, and only a worker
 * that scores sites' expected languages pays for it.
 */
export const loadLanguageIdentifier = async (): Promise<LanguageIdentifier> => {
  const { eld } = await import("eld/small");
  return {
    identify(text: string): Identified {
      // Under 12 letters (a name, "ok thanks") no identifier is right often enough to count.
      if (text.replace(/[^\p{L}]/gu, "").length < 12) return { language: undefined };
      const result = eld.detect(text);
      return { language: result.language !== "" && result.isReliable() ? result.language : undefined };
    },
  };
};
