export * from "./signing-secrets.ts";
export * from "./sign.ts";
export * from "./check.ts";
export * from "./replay-guard.ts";
export * from "./signing-ring.ts";
