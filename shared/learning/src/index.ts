export * from "./codec.ts";
export * from "./report-examples.ts";
export * from "./versions.ts";
export * from "./train/index.ts";
export * from "./service.ts";
export * from "./deployment.ts";
