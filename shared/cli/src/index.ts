export * from "./run.ts";
export * from "./commands.ts";
export * from "./feedback-commands.ts";
export * from "./console-commands.ts";
export * from "./model-commands.ts";
