import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const child = fileURLToPath(new URL("./shutdown-child.ts", import.meta.url));

/** Starts the child, sends `signals` 50 ms apart once it is ready, and reports how it ended. */
const run = (signals: NodeJS.Signals[]) =>
  new Promise<{ code: number | null; output: string; ms: number }>((resolve) => {
    // Node directly (tsx's loader), so the signals reach the process under test, not a wrapper.
    const proc = spawn(process.execPath, ["--import", "tsx", child], {
      cwd: fileURLToPath(new URL("../../..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    let sentAt = 0;
    proc.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output === "ready\n") {
        sentAt = Date.now();
        signals.forEach((signal, i) => setTimeout(() => proc.kill(signal), 50 * i));
      }
    });
    proc.on("exit", (code) => resolve({ code, output, ms: Date.now() - sentAt }));
  });

describe("graceful shutdown", () => {
  it("finishes its parts and exits 0 on SIGTERM", async () => {
    expect(await run(["SIGTERM"])).toMatchObject({ code: 0, output: "ready\ndrained\n" });
  });

  it("keeps draining when a SIGTERM follows the SIGINT (Ctrl-C under a launcher)", async () => {
    expect(await run(["SIGINT", "SIGTERM"])).toMatchObject({ code: 0, output: "ready\ndrained\n" });
  });

  it("exits at once with 1 on a second SIGINT", async () => {
    const result = await run(["SIGINT", "SIGINT"]);
    expect(result).toMatchObject({ code: 1, output: "ready\n" });
    expect(result.ms).toBeLessThan(600);
  });
});
