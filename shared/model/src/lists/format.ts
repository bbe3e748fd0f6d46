import { fileURLToPath } from "node:url";
import { canonicalText, words } from "../features/text.ts";

/** The public lists the product ships (see THIRD_PARTY_NOTICES there), beside this package's source. */
export const LISTS_DIR = fileURLToPath(new URL("../../lists/", import.meta.url));

/** Phrases are looked up as runs of one to this many words; the builder keeps no longer ones. */
export const PHRASE_WORDS = 3;

/**
 * The form a list phrase and a run of submission words are compared in: the featuriser's own
 * canonical words joined by single spaces, so case, accents, fancy fonts and punctuation between
 * words do not decide a match.
 */
export const phraseKey = (text: string): string => words(canonicalText(text)).join(" ");
