// tsx shared/testkit/bench/replay-feedback-tried.ts DIR/items-1200
//
// Learning choices measured for issue 17 and not shipped (docs/feedback.md, "What was tried"),
// on the rows `pnpm replay:feedback:sweep --model-dir DIR` cached: each variant adds one term to
// the shipped verdict's log-odds on the 75 % a site did not report, and the script prints the
// sweep's means (ROC AUC, recall and precision at 0.8) and each source's figures.
//
// - similar: graded similarity to the reports, beyond the near-duplicate rule:
//   weight × (h(most similar spam report) − h(most similar clean report)), h rising from 0 at
//   `from` to 1 at the near-duplicate threshold (Jaccard of the fingerprints' 5-grams);
// - traffic: for a site whose reports hold one label, that label's reports against the site's own
//   classify traffic so far (positive-unlabelled), counted per bucket as the layer counts;
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  decodeSignature,
  LAYER_BUCKETS,
  logit,
  NEAR_DUPLICATE,
  personalize,
  similarity,
} from "@sift/feedback";
import { at08, auc, layerOf, type ReplayItem } from "./replay-sim.ts";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: replay-feedback-tried.ts DIR/items-<max-rows> (written by the sweep)");
  process.exit(2);
}
const sources = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => ({
    source: f.replace(/\.json$/, ""),
    items: JSON.parse(readFileSync(join(dir, f), "utf8")) as ReplayItem[],
  }));

interface Site {
  reported: ReplayItem[];
  rest: ReplayItem[];
}
/** A variant's extra log-odds for each of the rest's rows, in order. */
type Variant = (site: Site) => number[];

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
const mean = (xs: number[]) => {
  const ok = xs.filter(Number.isFinite);
  return ok.reduce((a, b) => a + b, 0) / ok.length;
};

const similar =
  (weight: number, from: number): Variant =>
  ({ reported, rest }) => {
    const reports = reported.map((r) => ({ label: r.label, signature: decodeSignature(r.signature)! }));
    const h = (s: number) => Math.max(0, Math.min(1, (s - from) / (NEAR_DUPLICATE - from)));
    return rest.map((r) => {
      const signature = decodeSignature(r.signature)!;
      const best = [0, 0];
      for (const x of reports) best[x.label] = Math.max(best[x.label]!, similarity(signature, x.signature));
      return weight * (h(best[1]!) - h(best[0]!));
    });
  };

/** The layer's smoothing (layer.ts), with the site's traffic in place of the missing label. */
const traffic =
  (gain: number): Variant =>
  ({ reported, rest }) => {
    const labels = new Set(reported.map((r) => r.label));
    if (labels.size !== 1) return rest.map(() => 0);
    const sign = labels.has(1) ? 1 : -1;
    const reportCounts = new Float64Array(LAYER_BUCKETS);
    const trafficCounts = new Float64Array(LAYER_BUCKETS);
    let seen = 0;
    const classified = (r: ReplayItem) => {
      for (const b of r.buckets) trafficCounts[b] = trafficCounts[b]! + 1;
      seen++;
    };
    for (const r of reported) for (const b of r.buckets) reportCounts[b] = reportCounts[b]! + 1;
    reported.forEach(classified); // a site classifies what it later reports
    const n = reported.length;
    return rest.map((r) => {
      let sum = 0;
      for (const b of r.buckets) {
        const s = reportCounts[b]!;
        const t = trafficCounts[b]!;
        if (s + t === 0) continue;
        const pooled = (s + t) / (n + seen);
        const ratio = Math.log((s + 10 * pooled) / (n + 10)) - Math.log((t + 10 * pooled) / (seen + 10));
        sum += (ratio * (s + t)) / (s + t + 3);
      }
      classified(r);
      return (sign * ((gain * n) / (n + 50)) * sum) / Math.sqrt(Math.max(1, r.buckets.length));
    });
  };

const VARIANTS: Array<[string, Variant | null]> = [
  ["shipped", null],
  ...[0.05, 0.1, 0.2].flatMap((from) =>
    [2, 4, 8].map((w): [string, Variant] => [`similar ×${w} from ${from}`, similar(w, from)]),
  ),
  ...[0.3, 0.6, 1.2].map((g): [string, Variant] => [`traffic gain ${g}`, traffic(g)]),
];

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "  -  ");
for (const [name, variant] of VARIANTS) {
  const per = sources.map(({ source, items }) => {
    const cut = Math.floor(items.length / 4);
    const site: Site = { reported: items.slice(0, cut), rest: items.slice(cut) };
    const state = { version: 1, own: layerOf(site.reported), lists: [] };
    const extra = variant ? variant(site) : site.rest.map(() => 0);
    const scored = site.rest.map((r, i) => {
      const verdict = personalize({ baseScore: r.base, ids: r.ids, fields: r.fields, state, shared: null });
      return { score: sigmoid(logit(verdict.score) + extra[i]!), label: r.label };
    });
    const base = site.rest.map((r) => ({ score: r.base, label: r.label }));
    return { source, base: auc(base), learned: auc(scored), ...at08(scored) };
  });
  console.log(
    `${name.padEnd(24)} AUC ${f3(mean(per.map((p) => p.base)))} → ${f3(mean(per.map((p) => p.learned)))}` +
      `  R ${f3(mean(per.map((p) => p.recall)))}  P ${f3(mean(per.map((p) => p.precision)))}  | ` +
      per.map((p) => `${p.source} ${f3(p.learned)}/${f3(p.recall)}/${f3(p.precision)}`).join("  "),
  );
}
