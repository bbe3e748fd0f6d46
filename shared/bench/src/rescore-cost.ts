/**
 * What following the version in service costs a worker (issue 53: a report's base score under
 * the version it serves): `pnpm bench:rescore`. A workspace at the cap (MAX_CORRECTION_REPORTS
 * reports with their examples, comment-length submissions of 100-600 characters) is derived as
 * the worker derives it when it loads the state: with the reports' stored scores (the rule before
 * examples were rescored: the correction's fit alone) and rescored by a version's linear weights
 * (decoding each example, its dot product, then the same fit). Prints the median of five rounds
 * of each, the difference and the load average beside them. In process, no Redis.
 */
import { loadavg } from "node:os";
import { readFileSync } from "node:fs";
import {
  CORRECTION_RECORD_BYTES,
  encodeExampleEntry,
  encodeReviewed,
  learnedScores,
  MAX_CORRECTION_REPORTS,
  reportBuckets,
  type Rescorer,
} from "@sift/feedback";
import { decodeExample, encodeExample, exampleRescorer } from "@sift/learning";
import { FEATURIZER_VERSION, featurize, linearScorerOf, MODEL_PATH, readLinearWeights } from "@sift/model";

const WORDS = (
  "the a to of and in is it you that for on with this are be have at or as your from can we our " +
  "table chair delivery order price free offer click here win money loan credit casino crypto " +
  "invest bitcoin prize urgent account verify password bank transfer weekend booking room hotel " +
  "question thanks hello please available collect saturday sunday photos lovely sister cousin " +
  "recommend shop street city visit website link cheap best discount seo ranking followers"
).split(" ");

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const text = () => {
  const length = 100 + Math.floor(random() * 500);
  let out = "";
  while (out.length < length) out += `${WORDS[Math.floor(random() * WORDS.length)]} `;
  return out.trim();
};

const weights = readLinearWeights(readFileSync(MODEL_PATH));
const stored = linearScorerOf("stored", weights);
const served = linearScorerOf("served", { ...weights, shift: weights.shift + 0.5 });
const rescorer: Rescorer = exampleRescorer(served.version, { ...weights, shift: weights.shift + 0.5 });
// The worker's rescorer reads the bytes directly; check it against decoding then the sum.
const check = (bytes: Buffer) => {
  const z = rescorer.logOdds(bytes);
  const decoded = decodeExample(bytes);
  if (z === null || !decoded || Math.abs(z - served.logOdds(decoded)) > 1e-4)
    throw new Error(`rescored ${z}, decoded ${decoded && served.logOdds(decoded)}`);
};

const reviewed: Buffer[] = [];
const entries: Buffer[] = [];
let features = 0;
let bytes = 0;
for (let i = 0; i < MAX_CORRECTION_REPORTS; i++) {
  const fields = [["message", text()]] as const;
  const f = featurize(fields);
  features += f.ids.length;
  const label = random() < 0.4 ? ("spam" as const) : ("clean" as const);
  const job = {
    label,
    logOdds: stored.logOdds(f),
    modelVersion: stored.version,
    buckets: reportBuckets(f.ids),
    example: encodeExample({
      label: label === "spam" ? 1 : 0,
      featurizerVersion: FEATURIZER_VERSION,
      reviewedAt: i,
      ids: f.ids,
      vals: f.vals,
    }).toString("base64"),
  };
  reviewed.push(encodeReviewed(job));
  const seq = Buffer.alloc(4);
  seq.writeUInt32LE(i + 1, 0);
  const entry = Buffer.concat([seq, encodeExampleEntry(job)]);
  if (i < 50) check(entry.subarray(4 + CORRECTION_RECORD_BYTES));
  bytes += entry.length;
  entries.push(entry);
}
const snapshot = {
  reviewed: Buffer.concat(reviewed),
  corrections: null,
  examples: { scored: MAX_CORRECTION_REPORTS, entries },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (base: Rescorer | null) => {
  const rounds: number[] = [];
  let rescored = 0;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    rescored = learnedScores(snapshot, base).rescored;
    rounds.push(performance.now() - t);
  }
  return { ms: median(rounds), rescored };
};
/** The rescoring alone: every entry's example through the version's weights. */
const alone = () => {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (const entry of entries) rescorer.logOdds(entry.subarray(4 + CORRECTION_RECORD_BYTES));
    rounds.push(performance.now() - t);
  }
  return median(rounds);
};
// Warm-up (JIT) before anything is timed.
time(rescorer);
alone();
const before = loadavg();
const plain = time(null);
const rescoring = time(rescorer);
const rescoreOnly = alone();
const after = loadavg();
const fmt = (l: number[]) => l.map((x) => x.toFixed(2)).join(" ");
console.log(
  `workspace at the cap: ${MAX_CORRECTION_REPORTS} reports, ${Math.round(features / MAX_CORRECTION_REPORTS)} features a report, ` +
    `examples list ${(bytes / 1e6).toFixed(2)} MB (${Math.round(bytes / MAX_CORRECTION_REPORTS)} B an entry, ${CORRECTION_RECORD_BYTES} of them the correction record)`,
);
console.log(`derived with the stored scores (the correction's fit):  ${plain.ms.toFixed(1)} ms`);
console.log(
  `derived rescored by the version served (${rescoring.rescored} examples): ${rescoring.ms.toFixed(1)} ms`,
);
console.log(
  `the difference: ${(rescoring.ms - plain.ms).toFixed(1)} ms; the rescoring alone (${MAX_CORRECTION_REPORTS} examples): ${rescoreOnly.toFixed(1)} ms (medians of 5 rounds)`,
);
console.log(`load average: ${fmt(before)} before, ${fmt(after)} after`);
