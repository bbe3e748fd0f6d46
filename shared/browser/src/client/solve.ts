import { solveChallenge, type IssuedChallenge } from "@sift/challenge";
import type { WorkerReply } from "./protocol.ts";

/** Filled in by the build with the bundled worker (see scripts/build.ts). */
declare const __SIFT_WORKER_SOURCE__: string;

let workerUrl: string | undefined;

/**
 * Solves in a blob Web Worker. Where a Content-Security-Policy forbids blob workers
 * (`worker-src` without `blob:`), it solves on the main thread instead: WebCrypto digests are
 * asynchronous, so the page stays usable, only less smooth.
 */
export const solveOffThread = (issued: IssuedChallenge): Promise<string> => {
  let worker: Worker;
  try {
    workerUrl ??= URL.createObjectURL(new Blob([__SIFT_WORKER_SOURCE__], { type: "text/javascript" }));
    worker = new Worker(workerUrl);
  } catch {
    return solveChallenge(issued);
  }
  return new Promise<string>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      worker.terminate();
      if (event.data.ok) resolve(event.data.solution);
      else reject(new Error(event.data.message));
    };
    worker.onerror = (event) => {
      // A worker blocked after construction (some CSP paths) fails here: fall back the same way.
      event.preventDefault();
      worker.terminate();
      solveChallenge(issued).then(resolve, reject);
    };
    worker.postMessage({ challenge: issued.challenge, signature: issued.signature });
  });
};
