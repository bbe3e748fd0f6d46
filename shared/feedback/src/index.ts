export * from "./fingerprint.ts";
export * from "./near-duplicates.ts";
export * from "./layer.ts";
export * from "./lists.ts";
export * from "./personalize.ts";
export * from "./list-store.ts";
export * from "./store.ts";
