import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { browserBundlePath } from "./paths.ts";

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** ES2020 covers every browser with WebCrypto, Web Workers, requestSubmit aside (it falls back). */
const TARGET = ["es2020"];

export interface BuiltBundle {
  path: string;
  code: string;
  bytes: number;
  gzipBytes: number;
}

/**
 * Two esbuild passes: the worker alone, then sift.js with the worker's code inlined as a string
 * (it becomes a blob worker). No timestamps, hashes or absolute paths reach the output, so a
 * build of the same sources is byte-identical; esbuild takes tens of milliseconds.
 */
export const buildBrowserBundle = async (outfile = browserBundlePath()): Promise<BuiltBundle> => {
  // Imported here so serving the built file (browserBundlePath) never needs esbuild.
  const { build } = await import("esbuild");
  const common = {
    bundle: true,
    minify: true,
    write: false,
    format: "iife",
    target: TARGET,
    legalComments: "none",
    logLevel: "silent",
  } as const;
  const worker = await build({ ...common, entryPoints: [here("./client/worker.ts")] });
  const workerSource = worker.outputFiles[0]!.text;
  const main = await build({
    ...common,
    entryPoints: [here("./client/sift.ts")],
    define: { __SIFT_WORKER_SOURCE__: JSON.stringify(workerSource) },
  });
  const code = main.outputFiles[0]!.text;
  await mkdir(dirname(outfile), { recursive: true });
  // Write then rename: a gateway serving the file (or a parallel test build) never sees half of it.
  const partial = `${outfile}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(partial, code);
  await rename(partial, outfile);
  return {
    path: outfile,
    code,
    bytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code, { level: 9 }).length,
  };
};
