export * from "./keys.ts";
export * from "./sign.ts";
export * from "./check.ts";
export * from "./replay-guard.ts";
export * from "./key-config.ts";
