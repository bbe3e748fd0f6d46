import { describe, expect, it } from "vitest";
import type { Place } from "../routes/workspace.ts";
import { logSettingsSection } from "./log-settings.ts";

const place = {
  workspace: { id: "ws_1", name: "<b>Shop</b>" },
  frame: { csrf: "token" },
} as unknown as Place;
const settings = { privacy: "redacted", retentionDays: 14, maxEntries: 10_000 } as const;

describe("the log settings section", () => {
  it("offers full only when the deployment has a log key, or the workspace is full already", () => {
    const options = (html: string) => [...html.matchAll(/<option value="([a-z]+)"/g)].map((m) => m[1]);
    const section = (canSeal: boolean, privacy: "full" | "redacted") =>
      logSettingsSection(place, { settings: { ...settings, privacy }, canManage: true, canSeal }).toString();
    expect(options(section(true, "redacted"))).toEqual(["full", "redacted", "none"]);
    expect(options(section(false, "redacted"))).toEqual(["redacted", "none"]);
    expect(section(false, "redacted")).toContain("no log key (SIFT_LOG_KEYS)");
    // How to turn full on, in words, where the deployment has no key; not shown once it is full.
    expect(section(false, "redacted")).toContain(
      "<code>SIFT_LOG_KEYS=key1:&lt;32 random bytes, base64&gt;</code>",
    );
    expect(section(true, "redacted")).toContain("An owner can choose it below");
    expect(section(true, "full")).not.toContain("log-full-help");
    expect(options(section(false, "full"))).toEqual(["full", "redacted", "none"]);
  });

  it("shows the summary alone to those who cannot manage, and says when the log is off", () => {
    const shown = logSettingsSection(place, { settings, canManage: false, canSeal: true }).toString();
    expect(shown).toContain("Verdicts are kept 14 days, at most 10,000 of them; redacted (default)");
    expect(shown).not.toContain("<form");
    const off = logSettingsSection(place, {
      settings: { ...settings, retentionDays: 0 },
      canManage: true,
      canSeal: true,
    }).toString();
    expect(off).toContain("The log is off");
    // The workspace's name is escaped in the forget confirmation.
    expect(off).toContain("&lt;b&gt;Shop&lt;/b&gt;");
  });
});
