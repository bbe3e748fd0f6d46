// Isomorphic entry: runs in browsers, Web Workers and Node. Server-only code is in ./server.
export * from "./bytes.ts";
export * from "./encoding.ts";
export * from "./pow.ts";
export * from "./solution.ts";
export * from "./solver.ts";
export * from "./client.ts";
