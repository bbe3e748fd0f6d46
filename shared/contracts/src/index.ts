export * from "./messages.ts";
export * from "./classify.ts";
export * from "./verify.ts";
export * from "./inference.ts";
export * from "./identity.ts";
export * from "./jobs.ts";
export * from "./openapi.ts";
