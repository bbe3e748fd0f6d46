export * from "./api.ts";
export * from "./context.ts";
export * from "./route.ts";
// Webhooks are a package of their own (classify emits usage events without /v1); these names
// stay importable from here for the callers written before the split.
export * from "@sift/webhooks";
