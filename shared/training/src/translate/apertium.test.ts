import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SourceRow } from "../data/sources.ts";
import {
  ApertiumMissing,
  FIRST,
  FROM_SPANISH,
  fixRomanian,
  INSTALL_HINT,
  openApertium,
  PACKAGES,
} from "./apertium.ts";
import { chooseRows, prepareLine } from "./translations.ts";

const hasApertium = (() => {
  try {
    return execFileSync("apertium", ["-l"], { encoding: "utf8" }).includes("eng-spa");
  } catch {
    return false;
  }
})();
// CI installs the packages (.ci/run), so there a missing translator is a failure, not a skip.
if (!hasApertium && !process.env["CI"])
  console.warn(`skipping the Apertium translation tests: ${INSTALL_HINT} to run them`);

const dir = mkdtempSync(join(tmpdir(), "sift-apertium-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasApertium && !process.env["CI"])("the translation step, with Debian's Apertium", () => {
  it("translates line for line through English to Spanish and on from the Spanish", async () => {
    const apertium = openApertium(dir);
    const english = [
      "Earn money from home today, click here!",
      "Hello, I would like to book a table for two on Friday.",
      "Line three has symbols: <b> [x] ^$ 50% @home #tag",
    ];
    const spanish = await apertium.translate(FIRST, english);
    expect(spanish).toHaveLength(3);
    expect(spanish[0]!.toLowerCase()).toContain("dinero");
    expect(spanish[1]!.toLowerCase()).toContain("mesa");
    const romanian = await apertium.translate(FROM_SPANISH.ro[0]!, spanish);
    expect(romanian).toHaveLength(3);
    expect(romanian[1]!.toLowerCase()).toContain("masă");
    const italian = await apertium.translate(FROM_SPANISH.it[0]!, spanish);
    expect(italian[0]!.toLowerCase()).toContain("soldi");
    expect(Object.keys(apertium.versions).sort()).toEqual([...PACKAGES].sort());
    // No unknown-word marks (`-u`); the generator's alternatives are in its own output, and
    // fixRomanian (the next model's reading) leaves what a Romanian writes.
    const marks = await apertium.translate(
      FROM_SPANISH.ro[0]!,
      await apertium.translate(FIRST, ["I live in a house in London and work in a bank in the city."]),
    );
    expect(marks[0]).not.toMatch(/[*#@~]\p{L}/u);
    expect(marks[0]).toMatch(/-n\/în/);
    expect(fixRomanian(marks[0]!)).toMatch(/(^|\s)în\s/);
    expect(fixRomanian(marks[0]!)).not.toMatch(/-n\//);
    for (const v of Object.values(apertium.versions)) expect(v).toMatch(/^\d/);
  });
});

describe("the Romanian generator's alternatives", () => {
  it("keep the full form of the preposition, in any case, and touch nothing else", () => {
    expect(fixRomanian("Viu -n/în o casă -n/În Londra")).toBe("Viu în o casă În Londra");
    expect(fixRomanian("LANSARE -N/ÎN 3 MINUTE")).toBe("LANSARE ÎN 3 MINUTE");
    expect(fixRomanian("opt-in și/sau -n-ul 24/7")).toBe("opt-in și/sau -n-ul 24/7");
  });
});

describe("the translation step without Apertium", () => {
  it("refuses with a message naming the packages", () => {
    const path = process.env["PATH"];
    process.env["PATH"] = "/nonexistent";
    try {
      expect(() => openApertium(dir)).toThrow(ApertiumMissing);
      expect(() => openApertium(dir)).toThrow(/apertium-eng-spa.*apertium-es-pt/);
    } finally {
      process.env["PATH"] = path;
    }
  });
});

describe("which rows are translated", () => {
  const rows = (label: 0 | 1): SourceRow[] =>
    Array.from({ length: 40 }, (_, i) => ({
      source: "sms_spam",
      text: `message number ${i} about the order`,
      label,
      group: `sms:${i}`,
    }));

  it("chooses by the row, never by its label, and two languages each", () => {
    const asHam = chooseRows("sms_spam", rows(0));
    const asSpam = chooseRows("sms_spam", rows(1));
    expect(asHam.map((c) => [c.key, c.langs])).toEqual(asSpam.map((c) => [c.key, c.langs]));
    for (const c of asHam) {
      expect(c.langs).toHaveLength(2);
      expect(new Set(c.langs).size).toBe(2);
    }
  });

  it("leaves other languages alone and flattens a long text onto one line", () => {
    const thai: SourceRow = { source: "thai_sms", text: "สวัสดีครับ", label: 0, group: "t" };
    expect(chooseRows("thai_sms", [thai])).toEqual([]);
    const line = prepareLine(`${"word ".repeat(400)}\nlast`);
    expect(line).not.toContain("\n");
    expect(line.length).toBeLessThanOrEqual(1000);
  });
});
