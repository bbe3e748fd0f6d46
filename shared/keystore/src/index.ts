export * from "./keystore.ts";
export * from "./types.ts";
export * from "./secrets.ts";
export * from "./usage.ts";
export * from "./notices.ts";
export * from "./gcra.ts";
export * from "./layout.ts";
export * from "./redis-store.ts";
