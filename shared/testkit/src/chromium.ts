import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";

/** Debian's Chromium (`apt-get install -y chromium`); `npx playwright install` has no network here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

export type ChromiumState = { ok: true } | { ok: false; reason: string };

/** What ensureChromium needs from the machine (tests of the decision pass their own). */
export interface ChromiumHost {
  executable(path: string): boolean;
  /**
   * `true` for root with apt-get on the PATH, the only case where a test run installs
   * packages; otherwise why not.
   */
  mayInstall(): true | string;
  /** Runs apt-get; resolves whether it exited 0. */
  apt(args: string[]): Promise<boolean>;
  log(line: string): void;
}

export const skipLine = (path: string, why: string): string =>
  `browser tests skipped: no Chromium at ${path} (${why}); enable them with ` +
  "`apt-get install -y chromium` as root, or CHROMIUM_PATH=<a Chromium binary>";

/**
 * Chromium for the browser suites: there already, or installed with apt-get where the process
 * may (root with apt-get), or a reason to skip that says how to enable them.
 */
export const ensureChromium = async (host: ChromiumHost, path = CHROMIUM_PATH): Promise<ChromiumState> => {
  if (host.executable(path)) return { ok: true };
  const may = host.mayInstall();
  if (may !== true) return { ok: false, reason: skipLine(path, may) };
  host.log("installing chromium for the browser tests (apt-get install -y chromium)…");
  // A fresh image has no package lists: install, and on failure update the lists and retry.
  const installed =
    (await host.apt(["install", "-y", "chromium"])) ||
    ((await host.apt(["update"])) && (await host.apt(["install", "-y", "chromium"])));
  if (installed && host.executable(path)) return { ok: true };
  const why = installed ? "apt-get installed no binary there" : "apt-get install failed";
  return { ok: false, reason: skipLine(path, why) };
};

export const systemHost: ChromiumHost = {
  executable: (path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
  mayInstall: () => {
    // Keeps a root test run from installing packages (and lets the skip path be tried).
    if (process.env["SIFT_TEST_NO_INSTALL"]) return "SIFT_TEST_NO_INSTALL is set";
    if (process.getuid?.() !== 0) return "not root, so not installed";
    const apt = spawnSync("apt-get", ["--version"], { stdio: "ignore" });
    return apt.status === 0 ? true : "no apt-get, so not installed";
  },
  apt: (args) =>
    new Promise((resolve) => {
      // Wait for an apt run by another process (up to 10 minutes) instead of failing on its lock.
      const child = spawn("apt-get", ["-qq", "-o", "DPkg::Lock::Timeout=600", ...args], {
        env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
        stdio: ["ignore", "ignore", "inherit"],
      });
      child.on("error", () => resolve(false));
      child.on("exit", (code) => resolve(code === 0));
    }),
  log: (line) => console.warn(`sift: ${line}`),
};
