export * from "./codec.ts";
export * from "./examples.ts";
export * from "./versions.ts";
export * from "./train/index.ts";
export * from "./service.ts";
export * from "./deployment.ts";
