export * from "./api.ts";
export * from "./context.ts";
export * from "./route.ts";
export * from "./webhooks/store.ts";
export * from "./webhooks/delivery.ts";
export * from "./webhooks/addresses.ts";
export * from "./webhooks/usage-events.ts";
