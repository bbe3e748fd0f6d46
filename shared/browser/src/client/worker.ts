/**
 * The Web Worker: solves one challenge per message, off the page's main thread. Bundled on its
 * own and inlined into sift.js as a blob, because a worker must be same-origin with the page and
 * sift.js is usually served from the service's origin.
 */
import { solveChallenge } from "@sift/challenge";
import type { WorkerReply, WorkerRequest } from "./protocol.ts";

// Typed by hand rather than with the WebWorker lib, so one DOM tsconfig covers the package.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
};

scope.onmessage = (event) => {
  solveChallenge(event.data).then(
    (solution) => scope.postMessage({ ok: true, solution }),
    (error: unknown) => scope.postMessage({ ok: false, message: String(error) }),
  );
};
