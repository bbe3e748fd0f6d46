export * from "./context.ts";
export * from "./errors.ts";
export * from "./request.ts";
export * from "./health.ts";
export * from "./service.ts";
export * from "./trace.ts";
