// The worker thread's entry: Node 20's worker threads do not inherit tsx's loader from the
// thread that starts them, so this plain module registers it and then loads the TypeScript
// worker (tsx: the workspace root's dev dependency, found by walking up from here).
import { register } from "tsx/esm/api";

register();
await import("./linear-worker.ts");
