import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;

export const SERVICE_ENTRIES = {
  gateway: "services/gateway/src/main.ts",
  verify: "services/verify/src/main.ts",
  classify: "services/classify/src/main.ts",
  worker: "services/model-worker/src/main.ts",
} as const;
export type ServiceName = keyof typeof SERVICE_ENTRIES;

/**
 * Runs one service as its own process (as a container would), with its output prefixed by its
 * name, or dropped when `quiet`.
 */
export const spawnService = (
  name: ServiceName,
  env: Record<string, string | undefined>,
  options: { quiet?: boolean } = {},
): ChildProcess => {
  const child = spawn(TSX, [SERVICE_ENTRIES[name]], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", options.quiet ? "ignore" : "pipe", options.quiet ? "ignore" : "pipe"],
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) =>
      process.stdout.write(`${name.padEnd(8)} | ${line}\n`),
    );
  }
  return child;
};

/** Resolves once `url` answers 200, or rejects after `timeoutMs`. */
export const waitForHttp = async (url: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer in ${timeoutMs} ms`);
};

export const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
