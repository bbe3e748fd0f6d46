import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SPAMASSASSIN_RULES_DIR, spamAssassinAllRules } from "@sift/model/spamassassin";
import { SOURCE_NAMES, SOURCES } from "./data/catalog.ts";
import { loadSource } from "./data/sources.ts";
import { MAX_FORM_HONEST_RATE, MIN_RATIO, MIN_SPAM, selectRules } from "./rules/select.ts";
import { CALIBRATION_POPULATION } from "./train/calibrate.ts";

/**
 * `pnpm rules:measure --data ../shared/data`: how often each compiled SpamAssassin body rule
 * fires on each source's spam and honest rows, and what the scan costs per text: the measurement
 * the rules the featuriser fires are selected on (rules/select.ts). `--write` writes that
 * selection to shared/model/rules/spamassassin/selected.json (docs/model/form-spam.md).
 */
const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    write: { type: "boolean", default: false },
  },
});
const dataDir = resolve(values.data!);
const fired = new Map<string, { spam: number; ham: number; formHam: number; sources: Set<string> }>();
const FORM_LIKE = new Set(Object.values(CALIBRATION_POPULATION).flat(2));
let texts = 0;
let spent = 0;
const totals = { spam: 0, honest: 0, formHonest: 0 };
for (const source of SOURCE_NAMES) {
  const rows = loadSource(dataDir, source);
  const counts = [0, 0];
  const hit = [0, 0];
  for (const row of rows) {
    const started = performance.now();
    const names = spamAssassinAllRules(row.text);
    spent += performance.now() - started;
    texts++;
    counts[row.label]!++;
    // The selection counts the trainable sources only (those the model is trained on).
    const counted = SOURCES[source].train;
    if (counted) totals[row.label === 1 ? "spam" : "honest"]++;
    const formHonest = row.label === 0 && FORM_LIKE.has(source);
    if (formHonest) totals.formHonest++;
    if (names.length) hit[row.label]!++;
    for (const name of names) {
      const f = fired.get(name) ?? { spam: 0, ham: 0, formHam: 0, sources: new Set<string>() };
      f.sources.add(source);
      fired.set(name, f);
      if (!counted) continue;
      f[row.label === 1 ? "spam" : "ham"]++;
      if (formHonest) f.formHam++;
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
    `${name.padEnd(30)} spam ${String(f.spam).padStart(6)} honest ${String(f.ham).padStart(6)} (form-like ${String(f.formHam).padStart(4)})  ${[...f.sources].join(" ")}`,
  );

const selected = selectRules(
  [...fired].map(([name, f]) => ({ name, spam: f.spam, honest: f.ham, formHonest: f.formHam })),
  totals,
).sort((a, b) => a.name.localeCompare(b.name));
console.log(
  `\nselected (≥ ${MIN_SPAM} spam rows, spam rate ≥ ${MIN_RATIO} × honest rate with one more honest row, form-like honest rate ≤ 1/${1 / MAX_FORM_HONEST_RATE}): ${selected.length} of ${fired.size} rules that fired; ${totals.spam} spam, ${totals.honest} honest rows (${totals.formHonest} form-like)`,
);
if (values.write) {
  const file = `${SPAMASSASSIN_RULES_DIR}selected.json`;
  const body = {
    about:
      "The compiled body rules the featuriser fires, selected by `pnpm rules:measure --data ../shared/data --write` on the training data's counts (shared/training/src/rules/select.ts).",
    criterion: { minSpamRows: MIN_SPAM, minRateRatio: MIN_RATIO, maxFormHonestRate: MAX_FORM_HONEST_RATE },
    rows: totals,
    rules: selected,
  };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  console.log(`wrote ${file}`);
}
