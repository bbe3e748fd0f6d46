/**
 * Featurisation time per ordinary submission (issue 16's budget: 60 µs), on the same path the
 * worker runs: `pnpm bench:featurize`. Times the five example submissions of the
 * model card and four ordinary enquiries; prints the median of five rounds per item, in µs, and
 * each one's feature count.
 *
 * `--against <file>` times another checkout's featuriser beside this one in the same process
 * (e.g. `--against /work/main/shared/model/src/features/featurize.ts`), round by round
 * interleaved so a change of the machine's load falls on both alike (issue 59's side by side).
 * `--featurizer 7` times this checkout's next featuriser (NEXT_FEATURIZER_VERSION) instead.
 */
import { loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { NormalizedField } from "@sift/contracts";
import { featurize } from "@sift/model";
import { EXAMPLE_SUBMISSIONS, formFields } from "@sift/training";

const { values } = parseArgs({ options: { against: { type: "string" }, featurizer: { type: "string" } } });
/** `--featurizer 7`: time the next featuriser (built, not shipped) instead of the shipped one. */
const version = values.featurizer === undefined ? undefined : Number(values.featurizer);
type Featurize = (fields: readonly NormalizedField[]) => { ids: Int32Array };
const other: Featurize | undefined = values.against
  ? ((await import(pathToFileURL(values.against).href)) as { featurize: Featurize }).featurize
  : undefined;

const ORDINARY: unknown[] = [
  {
    name: "Sam Taylor",
    email: "sam@example.org",
    message: "Hello, is the room still free for the weekend of 14 June? We are two adults and a dog.",
  },
  {
    "your-name": "Marie",
    "your-email": "marie.dupont@gmail.com",
    "your-message":
      "Bonjour, je voudrais savoir si vous livrez à Lyon et quels sont les délais. Merci beaucoup !",
  },
  {
    comment_author: "Tom",
    comment_author_email: "tom.h@outlook.com",
    comment_content:
      "Thanks for the write-up. Does the same fix work on the 2019 model? Mine has the older board.",
  },
  "Can I change my booking from Friday to Saturday? Reference 44821.",
];
/** Enough calls that the timer's resolution and JIT warm-up do not matter. */
const CALLS = 20_000;
const ROUNDS = 5;

const items = [...EXAMPLE_SUBMISSIONS.map((e) => e.content), ...ORDINARY].map(formFields);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
console.log(`load average at start: ${load()}`);
const time = (f: Featurize, fields: readonly NormalizedField[]): number => {
  const t = performance.now();
  for (let i = 0; i < CALLS; i++) f(fields);
  return ((performance.now() - t) * 1000) / CALLS;
};
const median = (rounds: number[]) => [...rounds].sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
const otherMedians: number[] = [];
const medians = items.map((fields) => {
  const rounds: number[] = [];
  const otherRounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    rounds.push(time((f) => featurize(f, undefined, version), fields));
    if (other) otherRounds.push(time(other, fields));
  }
  if (other) otherMedians.push(median(otherRounds));
  return median(rounds);
});
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
// The features each submission sends the model (issue 51 asked that it stay as it was).
const counts = items.map((fields) => featurize(fields, undefined, version).ids.length);
medians.forEach((us, i) =>
  console.log(
    `${i < EXAMPLE_SUBMISSIONS.length ? "example" : "ordinary"} ${i + 1}: ${us.toFixed(1)} µs, ${counts[i]} features`,
  ),
);
console.log(`mean features per submission: ${mean(counts).toFixed(1)}`);
console.log(`mean of medians: ${mean(medians).toFixed(1)} µs`);
console.log(
  `mean of the ordinary enquiries (issue 16's budget: 60 µs): ${mean(medians.slice(EXAMPLE_SUBMISSIONS.length)).toFixed(1)} µs`,
);
if (other) {
  const pct = (a: number, b: number) => `${(100 * (a / b - 1)).toFixed(1)} %`;
  otherMedians.forEach((us, i) =>
    console.log(`against, item ${i + 1}: ${us.toFixed(1)} µs (this: ${medians[i]!.toFixed(1)})`),
  );
  const ordinary = EXAMPLE_SUBMISSIONS.length;
  console.log(
    `against ${values.against}: mean of medians ${mean(otherMedians).toFixed(1)} → ${mean(medians).toFixed(1)} µs (${pct(mean(medians), mean(otherMedians))}); ordinary ${mean(otherMedians.slice(ordinary)).toFixed(1)} → ${mean(medians.slice(ordinary)).toFixed(1)} µs (${pct(mean(medians.slice(ordinary)), mean(otherMedians.slice(ordinary)))})`,
  );
}
console.log(`load average at end: ${load()}`);
