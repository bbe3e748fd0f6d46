export * from "./features/featurize.ts";
export * from "./features/batch.ts";
export * from "./artifact.ts";
export { fnv1a } from "./features/hash.ts";
export { LISTS_DIR, PHRASE_WORDS, phraseKey } from "./lists/format.ts";
export { phraseList, phraseMatches } from "./features/lists.ts";
export * from "./explain/attributions.ts";
export * from "./linear.ts";
export { CANARY_PATH } from "./canary.ts";
