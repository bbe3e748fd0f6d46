export * from "./clock.ts";
export * from "./logger.ts";
export * from "./signing.ts";
export * from "./clients.ts";
export * from "./lifecycle.ts";
export * from "./body.ts";
export * from "./metrics.ts";
export * from "./edge/index.ts";
