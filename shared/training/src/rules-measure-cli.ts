import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { spamAssassinRules } from "@sift/model/spamassassin";
import { SOURCE_NAMES } from "./data/catalog.ts";
import { loadSource } from "./data/sources.ts";

/**
 * `pnpm rules:measure --data ../shared/data`: how often each compiled SpamAssassin body rule
 * fires on each source's spam and honest rows, and what the scan costs per text: the measurement
 * the rule families are chosen and kept on (docs/model/spamassassin.md).
 */
const { values } = parseArgs({ options: { data: { type: "string", default: "../shared/data" } } });
const dataDir = resolve(values.data!);
const fired = new Map<string, { spam: number; ham: number; sources: Set<string> }>();
let texts = 0;
let spent = 0;
for (const source of SOURCE_NAMES) {
  const rows = loadSource(dataDir, source);
  const counts = [0, 0];
  const hit = [0, 0];
  for (const row of rows) {
    const started = performance.now();
    const names = spamAssassinRules(row.text);
    spent += performance.now() - started;
    texts++;
    counts[row.label]!++;
    if (names.length) hit[row.label]!++;
    for (const name of names) {
      const f = fired.get(name) ?? { spam: 0, ham: 0, sources: new Set<string>() };
      f[row.label === 1 ? "spam" : "ham"]++;
      f.sources.add(source);
      fired.set(name, f);
    }
  }
  const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(1) : "-");
  console.log(
    `${source.padEnd(28)} any rule: spam ${pct(hit[1]!, counts[1]!)}% of ${counts[1]}, honest ${pct(hit[0]!, counts[0]!)}% of ${counts[0]}`,
  );
}
console.log(`\n${texts} texts, ${((spent * 1000) / texts).toFixed(1)} µs a text (mean)\n`);
for (const [name, f] of [...fired].sort((a, b) => b[1].spam + b[1].ham - (a[1].spam + a[1].ham)))
  console.log(
    `${name.padEnd(30)} spam ${String(f.spam).padStart(6)} honest ${String(f.ham).padStart(6)}  ${[...f.sources].join(" ")}`,
  );
