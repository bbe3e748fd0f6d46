/**
 * The model workers' client over NATS: a submission scored by a worker (with the workspace's
 * learned state, explained on request), concurrent submissions coalesced into one request.
 * The classify service scores with it, and the console rescores a reviewed submission with it.
 */
export * from "./client.ts";
export { Coalescer } from "./coalesce.ts";
