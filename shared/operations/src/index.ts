export * from "./context.ts";
export * from "./views.ts";
export * from "./deps.ts";
export * from "./workspaces.ts";
export * from "./configurations.ts";
