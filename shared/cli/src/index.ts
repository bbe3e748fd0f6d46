export * from "./run.ts";
export * from "./commands.ts";
export * from "./feedback-commands.ts";
export * from "./console-commands.ts";
