import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "@sift/testkit";

export interface WorkerProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string>;
}

/** Runs src/main.ts as its own process, as `pnpm --filter @sift/model-worker start` would. */
export const spawnWorker = async (
  natsUrl: string,
  env: Record<string, string> = {},
): Promise<WorkerProcess> => {
  const port = await freePort();
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", main], {
    env: { ...process.env, NATS_URL: natsUrl, MODEL_WORKER_PORT: String(port), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { port, child, exited };
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill("SIGKILL");
  throw new Error("model worker did not become ready");
};
