import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LISTS_DIR, phraseKey, phraseList, phraseMatches } from "@sift/model";
import { SOURCE_NAMES, SOURCES } from "./data/catalog.ts";
import { loadSource } from "./data/sources.ts";
import { honestAsOften, leftOut, SKIPPED_LANGUAGES } from "./lists/profanity.ts";

/**
 * `pnpm lists:profanity --data ../shared/data`: derives shared/model/lists/profanity.txt from the
 * npm package `naughty-words` (CC-BY-4.0; THIRD_PARTY_NOTICES carries the attribution) by the
 * rules of lists/profanity.ts, then drops the entries the trainable sources' honest rows use as
 * often as their spam rows. Deterministic: sorted, one canonical entry a line.
 */
const { values } = parseArgs({ options: { data: { type: "string", default: "../shared/data" } } });
const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve("naughty-words/package.json"));
const version = (JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string })
  .version;

const candidates = new Map<string, string>();
const dropped = new Map<string, number>();
for (const file of readdirSync(pkgDir)
  .filter((f) => /^[a-z]{2,3}(?:-[\w-]+)?\.json$/.test(f))
  .sort()) {
  const language = file.slice(0, -5).split("-")[0]!;
  if (SKIPPED_LANGUAGES.has(language)) continue;
  const entries: unknown = JSON.parse(readFileSync(join(pkgDir, file), "utf8"));
  if (!Array.isArray(entries)) continue;
  for (const entry of entries as string[]) {
    const why = leftOut(entry);
    if (why) {
      dropped.set(why, (dropped.get(why) ?? 0) + 1);
      continue;
    }
    const key = phraseKey(entry);
    // Longer than the featuriser's phrase lookup: it could never match.
    if (key.split(" ").length > 3) {
      dropped.set("longer than three words", (dropped.get("longer than three words") ?? 0) + 1);
      continue;
    }
    if (!candidates.has(key)) candidates.set(key, language);
  }
}

const list = phraseList(new Set(candidates.keys()));
const rows = { spam: 0, honest: 0 };
const hits = new Map<string, { spam: number; honest: number }>();
for (const source of SOURCE_NAMES.filter((s) => SOURCES[s].train)) {
  for (const row of loadSource(resolve(values.data!), source)) {
    const label = row.label === 1 ? "spam" : "honest";
    rows[label]++;
    for (const entry of new Set(phraseMatches(list, phraseKey(row.text).split(" ")))) {
      const h = hits.get(entry) ?? { spam: 0, honest: 0 };
      h[label]++;
      hits.set(entry, h);
    }
  }
}
const kept: string[] = [];
const byData: string[] = [];
for (const key of [...candidates.keys()].sort()) {
  const h = hits.get(key) ?? { spam: 0, honest: 0 };
  if (honestAsOften(h, rows)) byData.push(`${key} (spam ${h.spam}, honest ${h.honest})`);
  else kept.push(key);
}
writeFileSync(join(LISTS_DIR, "profanity.txt"), `${kept.join("\n")}\n`);
console.log(`naughty-words ${version}: ${kept.length} entries kept of ${candidates.size} candidates`);
console.log(`left out by rule: ${[...dropped].map(([w, n]) => `${w} ${n}`).join(", ")}`);
console.log(`left out by the data (${rows.spam} spam and ${rows.honest} honest rows): ${byData.join("; ")}`);
const met = [...hits].filter(([k]) => kept.includes(k));
console.log(
  `kept entries the data meets: ${met.map(([k, h]) => `${k} (spam ${h.spam}, honest ${h.honest})`).join("; ")}`,
);
