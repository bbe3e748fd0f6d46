export * from "./keys.ts";
export * from "./popular-domains.ts";
export * from "./spread.ts";
export * from "./store.ts";
export * from "./participation.ts";
