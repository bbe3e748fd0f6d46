export * from "./normalize.ts";
export * from "./tracking.ts";
export * from "./limits.ts";
