export * from "./ports.ts";
export * from "./servers.ts";
export * from "./stack.ts";
export * from "./http.ts";
export * from "./worker.ts";
export * from "./processes.ts";
export * from "./otlp.ts";
