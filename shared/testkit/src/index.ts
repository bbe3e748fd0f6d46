export * from "./ports.ts";
export * from "./servers.ts";
