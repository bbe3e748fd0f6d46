export * from "./run.ts";
export * from "./commands.ts";
