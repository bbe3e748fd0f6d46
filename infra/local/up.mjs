// Entry of `pnpm start` and `pnpm test`: plain JavaScript so it runs before anything is
// installed. Installs the workspace when needed, then hands over to the TypeScript launcher
// (start) or to vitest (test).
import { spawnSync, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const installed = `${root}node_modules/.modules.yaml`;
const lockfile = `${root}pnpm-lock.yaml`;

const needsInstall = () => !existsSync(installed) || statSync(lockfile).mtimeMs > statSync(installed).mtimeMs;

if (needsInstall()) {
  console.warn("sift: installing dependencies (pnpm install --frozen-lockfile)…");
  const result = spawnSync("npx", ["-y", "pnpm@10", "install", "--frozen-lockfile"], {
    cwd: root,
    stdio: "inherit",
    // onnxruntime-node's install script downloads CUDA files; its CPU binaries ship in the package.
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: "skip" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const bin = (name) => `${root}node_modules/.bin/${name}`;
const testing = process.argv.includes("--test");
const args = testing
  ? ["run", ...process.argv.slice(2).filter((a) => a !== "--test")]
  : [`${root}infra/local/launch.ts`, ...process.argv.slice(2)];
const child = spawn(bin(testing ? "vitest" : "tsx"), args, { cwd: root, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
