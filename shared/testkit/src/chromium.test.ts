import { describe, expect, it } from "vitest";
import { ensureChromium, type ChromiumHost } from "./chromium.ts";

/** The install-or-skip decision on a described machine (no packages are installed here). */
const machine = (options: {
  present: boolean;
  root: boolean;
  aptWorks?: boolean;
  aptInstalls?: boolean;
  /** A fresh image: install fails until `apt-get update` has run. */
  noLists?: boolean;
}) => {
  let present = options.present;
  let lists = !options.noLists;
  const calls: string[][] = [];
  const host: ChromiumHost = {
    executable: () => present,
    mayInstall: () => options.root || "not root, so not installed",
    apt: async (args) => {
      calls.push(args);
      if (!options.aptWorks) return false;
      if (args[0] === "update") lists = true;
      if (args[0] === "install" && !lists) return false;
      if (args[0] === "install" && options.aptInstalls !== false) present = true;
      return true;
    },
    log: () => {},
  };
  return { host, calls };
};

describe("ensureChromium", () => {
  it("uses a Chromium that is there, without apt", async () => {
    const { host, calls } = machine({ present: true, root: true, aptWorks: true });
    expect(await ensureChromium(host, "/usr/bin/chromium")).toEqual({ ok: true });
    expect(calls).toEqual([]);
  });

  it("installs it with apt-get install -y chromium when root with apt-get", async () => {
    const { host, calls } = machine({ present: false, root: true, aptWorks: true });
    expect(await ensureChromium(host, "/usr/bin/chromium")).toEqual({ ok: true });
    expect(calls).toEqual([["install", "-y", "chromium"]]);
  });

  it("skips with one line saying how to enable the tests when it may not install", async () => {
    const { host, calls } = machine({ present: false, root: false });
    const state = await ensureChromium(host, "/usr/bin/chromium");
    expect(calls).toEqual([]);
    expect(state).toEqual({ ok: false, reason: expect.stringContaining("apt-get install -y chromium") });
    if (state.ok) throw new Error("unreachable");
    expect(state.reason).toMatch(/^browser tests skipped: no Chromium at \/usr\/bin\/chromium/);
    expect(state.reason).not.toContain("\n");
  });

  it("updates the package lists and retries once when the install fails (a fresh image)", async () => {
    const { host, calls } = machine({ present: false, root: true, aptWorks: true, noLists: true });
    expect(await ensureChromium(host, "/usr/bin/chromium")).toEqual({ ok: true });
    expect(calls).toEqual([["install", "-y", "chromium"], ["update"], ["install", "-y", "chromium"]]);
  });

  it("skips when apt-get fails", async () => {
    const { host, calls } = machine({ present: false, root: true, aptWorks: false });
    const state = await ensureChromium(host, "/usr/bin/chromium");
    expect(state).toMatchObject({ ok: false, reason: expect.stringContaining("apt-get install failed") });
    expect(calls).toEqual([["install", "-y", "chromium"], ["update"]]);
  });

  it("skips when apt-get succeeds but no binary appears at the path", async () => {
    const { host } = machine({ present: false, root: true, aptWorks: true, aptInstalls: false });
    const state = await ensureChromium(host, "/opt/elsewhere/chromium");
    expect(state).toMatchObject({ ok: false, reason: expect.stringContaining("/opt/elsewhere/chromium") });
  });
});
