export * from "./language.ts";
export { loadLanguageIdentifier } from "./language-id.ts";
