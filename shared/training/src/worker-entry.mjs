// Every worker thread of this package starts here: Node 20's worker threads do not inherit
// tsx's loader from the thread that starts them, so this plain module registers it and then
// loads the TypeScript module named in workerData (tsx: the workspace root's dev dependency,
// found by walking up from here).
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.module);
