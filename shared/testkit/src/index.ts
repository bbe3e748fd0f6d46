export { freePort, waitForPort } from "@sift/runtime";
export * from "./servers.ts";
export * from "./stack.ts";
export * from "./http.ts";
export * from "./worker.ts";
