export * from "./store.ts";
export * from "./delivery.ts";
export * from "./addresses.ts";
export * from "./usage-events.ts";
