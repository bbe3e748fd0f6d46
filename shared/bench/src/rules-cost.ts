/**
 * What SpamAssassin's compiled body rules cost a text (issue 59): `pnpm bench:rules --data
 * ../shared/data [--against <spamassassin.ts of another checkout>]`. Times this checkout's scan of
 * the selected rules (the featuriser's), of every compiled rule, and optionally another
 * checkout's `spamAssassinRules`, round by round interleaved in one process over the same rows
 * (every 10th row of each trainable source), and prints the load average beside the figures.
 */
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { spamAssassinAllRules, spamAssassinRules } from "@sift/model/spamassassin";
import { loadSource, SOURCES, type SourceName } from "@sift/training";

const { values } = parseArgs({
  options: { data: { type: "string", default: "../shared/data" }, against: { type: "string" } },
});
type Scan = (text: string) => string[];
const scans: Array<[string, Scan]> = [
  ["selected rules (featuriser 7)", spamAssassinRules],
  ["every compiled rule", spamAssassinAllRules],
];
if (values.against) {
  const other = (await import(pathToFileURL(resolve(values.against)).href)) as { spamAssassinRules: Scan };
  scans.push([`against ${values.against}`, other.spamAssassinRules]);
}
const texts = (Object.keys(SOURCES) as SourceName[])
  .filter((s) => SOURCES[s].train)
  .flatMap((s) =>
    loadSource(resolve(values.data!), s)
      .filter((_, i) => i % 10 === 0)
      .map((r) => r.text),
  );
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
console.log(`${texts.length} texts, load average at start: ${load()}`);
const ROUNDS = 5;
const rounds = scans.map((): number[] => []);
for (let r = 0; r < ROUNDS; r++)
  scans.forEach(([, scan], k) => {
    const t = performance.now();
    for (const text of texts) scan(text);
    rounds[k]!.push(((performance.now() - t) * 1000) / texts.length);
  });
scans.forEach(([name], k) => {
  const sorted = [...rounds[k]!].sort((a, b) => a - b);
  console.log(
    `${name}: ${sorted[Math.floor(ROUNDS / 2)]!.toFixed(2)} µs a text (median of ${ROUNDS} rounds)`,
  );
});
console.log(`load average at end: ${load()}`);
