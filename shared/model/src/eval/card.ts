import { SOURCES, type SourceName } from "../data/catalog.ts";
import type { ModelMeta } from "../artifact.ts";
import type { Metrics } from "./metrics.ts";

export interface CardInput {
  meta: ModelMeta;
  inDomain: Array<{ source: SourceName; metrics: Metrics }>;
  pooled: Metrics;
  unseen: Array<{ source: SourceName; metrics: Metrics }>;
  cross: Array<{ source: SourceName; metrics: Metrics }>;
  probes: Array<{ name: string; n: number; flipped: number; meanDelta: number }>;
  quantiles: { spam: number[]; ham: number[] };
  command: string;
}

const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : "–");
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "–");

const table = (rows: Array<{ source: string; metrics: Metrics }>): string =>
  [
    "| source | n (spam) | ROC AUC | PR AUC | precision @0.8 | recall @0.8 | FPR @0.8 | TP / FP / FN / TN |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(
      ({ source, metrics: m }) =>
        `| ${source} | ${m.n} (${m.spam}) | ${f3(m.rocAuc)} | ${f3(m.prAuc)} | ${f3(m.precision)} | ${f3(m.recall)} | ${pct(m.fpr)} | ${m.confusion.tp} / ${m.confusion.fp} / ${m.confusion.fn} / ${m.confusion.tn} |`,
    ),
  ].join("\n");

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);

export const renderCard = (c: CardInput): string => {
  const used = Object.entries(SOURCES).filter(([, s]) => s.train);
  const notUsed = Object.entries(SOURCES).filter(([, s]) => !s.train);
  const sourceRows = (list: typeof used) =>
    list.map(([key, s]) => `| \`${key}\` | ${s.name}: ${s.what} | ${s.terms} | ${s.citation} |`).join("\n");
  return `# Model card: \`spam-standard\`

<!-- Written by \`${c.command}\`; edit src/eval/card.ts, not this file. -->

| | |
| --- | --- |
| version | \`${c.meta.version}\` (sha256 \`${c.meta.sha256.slice(0, 16)}…\`) |
| file | \`shared/model/artifacts/spam-standard.onnx\` (+ \`.json\` metadata), ${(((c.meta.buckets + 1) * 4) / 1048576).toFixed(1)} MB of float32 weights |
| task | score a form submission (its normalised fields) for spam; \`label\` is \`spam\` when score ≥ 0.8 |
| rebuild | \`pnpm train --data ../shared/data\` (deterministic: same data and code give the same bytes) |
| evaluate | \`pnpm eval --data ../shared/data\` (writes this card and \`docs/model/*.svg\`) |

## What it is

A hashed linear model over character and word n-grams, trained in TypeScript
(\`shared/model/src/train\`) and exported to ONNX by hand (\`shared/model/src/onnx\`).

- **Input**: the fields the classify service sends (after \`@sift/content\` normalisation: no
  \`_\` or tracking fields, no tracking parameters in links). The featuriser
  (\`shared/model/src/features/featurize.ts\`) is the one module both trainer and worker run.
- **Features** (hashed with FNV-1a into 2^18 buckets, at most ${c.meta.maxFeatures} per submission,
  log-counts, L2-normalised): field-name tokens; each field's role (name, e-mail, link, text);
  for text: character 2-4-grams, word unigrams, and 2-5-grams of the text's *shape* (each run of
  letters becomes \`a\`, symbols and emoji \`e\`, digits, punctuation and currency signs stay:
  the same in every language) plus the link count; link hosts and TLDs (links replaced by a
  placeholder in the text); e-mail domains, TLDs and the shape of the local part; author-name
  n-grams. Text is NFKC-folded (defeats "fancy font" letters), lower-cased, stripped of combining
  marks on Latin letters only, digit runs become a length class, long character repeats are cut.
- **Graph**: \`Gather(W, ids) · vals → ReduceSum → + bias → · scale + shift → Sigmoid\`, inputs
  \`ids\` int64 [N, L] and \`vals\` float [N, L] padded per batch: a sparse dot product, no dense
  2^18 input. ~0.1 ms per submission at batch 1, ~12 µs per item at batch 64 (one thread).
- **Training**: AdaGrad logistic regression, ${c.meta.options["epochs"]} epochs, L2 ${c.meta.options["l2"]}, seeded shuffle.
  Each source weighs ${c.meta.options["sourcePower"] === 0 ? "the same" : `in proportion to its size to the power ${c.meta.options["sourcePower"]}`}, spam and ham equally within
  a source (no source's label mix becomes a prior). Rows become form-shaped examples: one in five
  a bare string (\`content: "…"\`), the rest a form (\`name/email/message\`, WordPress
  \`comment_author/comment_author_email/comment_content\`, Contact Form 7 \`your-*\`, or
  \`name/message\`) with the row's real author where the set has one (YouTube) and otherwise a
  real YouTube commenter name drawn label-blind, plus an address made from the name. One row in
  five gets an ordinary link appended and one in ten a phone number, label-blind, so that the
  mere presence of a link or number (a shortcut in several sets) proves nothing by itself.
- **Calibration for 0.8**: score = σ(a·z + b). \`a\` is Platt scaling on out-of-fold logits
  (3 group folds), so scores spread like probabilities; \`b\` puts 0.8 at the lowest out-of-fold
  logit above which out-of-fold precision (counting examples as they come, mostly ham) never
  drops below ${c.meta.options["targetPrecision"]}, above the product's 0.97 because real forms are not the
  training sources. Both maps are monotone: the score is a rank.

## Training data

Used for the shipped model (terms allow it):

| key | set | terms | citation |
| --- | --- | --- | --- |
${sourceRows(used)}

Not used for training (terms do not allow shipping a model trained on them); used **only as
unseen test sets** below:

| key | set | terms | citation |
| --- | --- | --- | --- |
${sourceRows(notUsed)}

Shipped model trained on: ${c.meta.trainedOn.map((t) => `${t.source} ${t.rows} (${t.spam} spam)`).join(", ")}.

## Evaluation

Splits are by source and by duplicate group, never by row: a group is the text's letters only
(lower-cased, first 120), so templates differing in a number or link stay together, and every
translation in \`multilingual_sms\` shares the group of its English original in \`sms_spam\`.

### In-domain (4/5 of the groups of each set to train, the other 1/5 to test)

${table(c.inDomain)}
| **pooled** | ${c.pooled.n} (${c.pooled.spam}) | ${f3(c.pooled.rocAuc)} | ${f3(c.pooled.prAuc)} | ${f3(c.pooled.precision)} | ${f3(c.pooled.recall)} | ${pct(c.pooled.fpr)} | ${c.pooled.confusion.tp} / ${c.pooled.confusion.fp} / ${c.pooled.confusion.fn} / ${c.pooled.confusion.tn} |

![ROC, in-domain](model/roc-in-domain.svg) ![PR, in-domain](model/pr-in-domain.svg)

### Cross-source (leave one source out: train on all the others, test on all of it)

Real forms are none of these sources, so this is the better guide to what users will see. The
SMS set and its translations are one family and are held out together.

${table(c.cross)}
| **mean of sources** | | ${f3(mean(c.cross.map((r) => r.metrics.rocAuc)))} | ${f3(mean(c.cross.map((r) => r.metrics.prAuc)))} | | ${f3(mean(c.cross.map((r) => r.metrics.recall)))} | | |

![ROC, cross-source](model/roc-cross-source.svg) ![PR, cross-source](model/pr-cross-source.svg)

### Unseen sets (never trained on: languages and domains absent from training)

Scored by the in-domain model. Turkish, Indonesian, Vietnamese and Persian appear nowhere in the
training data, so low recall there is expected; the figure to watch is the false-positive rate.

${table(c.unseen)}

![ROC, unseen sets](model/roc-unseen.svg)

### Score spread (in-domain test, pooled)

| quantile | 5% | 25% | 50% | 75% | 95% |
| --- | --- | --- | --- | --- | --- |
| ham | ${c.quantiles.ham.map(f3).join(" | ")} |
| spam | ${c.quantiles.spam.map(f3).join(" | ")} |

![score histogram](model/score-histogram.svg)

### Shortcut probes (held-out ham, one change each)

Dataset shortcuts (a link, a long number, case, \`@\`, length) must not decide the verdict by
themselves. Share of in-domain held-out ham that crosses 0.8 after the change:

| change | ham texts | flipped to spam | mean score change |
| --- | --- | --- | --- |
${c.probes.map((p) => `| ${p.name} | ${p.n} | ${p.flipped} (${pct(p.flipped / p.n)}) | ${p.meanDelta >= 0 ? "+" : ""}${p.meanDelta.toFixed(3)} |`).join("\n")}

## Limitations

- Languages: trained on English (SMS, e-mail, social media), Hindi, German, French
  (machine-translated SMS), Thai and Russian (Telegram). Other languages get only character n-gram, text-shape
  and link signals; expect low recall there (see the unseen sets) rather than false positives.
- Domain: no training set is real web-form or contact-form traffic; the nearest are YouTube
  comments and the SpamAssassin e-mail (2002-2005, so its spam vocabulary is dated). SEO and
  link-building pitches, "guest post" offers and B2B cold outreach, common on contact forms, are
  under-represented.
- Threshold: 0.8 is placed for precision. On a source the model has not seen, scores drop and
  recall at 0.8 falls sharply (cross-source table) while precision mostly holds: an unfamiliar
  spam is more often let through than an unfamiliar real message is blocked. Lowering the
  threshold would not fix it: on a held-out source even a threshold fitted to that source
  reaches precision 0.97 at only ~5% recall (mean over sources), so the loss is in the ranking,
  not in the calibration.
- Cross-source ranking (what was tried, judged by leave-one-source-out; figures are the mean
  ROC AUC over the eight sources, then mean recall at 0.8): the v1 featuriser with L2 0.0001
  gave 0.702 / 0.098. L2 0.001: 0.727 / 0.106; dropping word bigrams and character 5-grams:
  0.725 / 0.118; both plus shape n-grams: 0.759 / 0.142; L2 0.003: 0.771 / 0.153; equal source
  weights: 0.777 / 0.156; L2 0.005 (shipped): 0.784 / 0.160. Not shipped: character 5-grams
  back at L2 0.005 rank better (0.804, in-domain recall 0.778) but put in-domain pooled precision
  at 0.9699, under the 0.97 floor, and Turkish e-mail precision at 0.46; with the 0.8 target
  raised to 0.982 or 0.985 (the latter clears it at 0.973), mean recall at 0.8 drops to 0.148 or
  0.129 (word bigrams back as well: 0.801 / 0.155, in-domain precision 0.966). Stronger still
  (L2 0.007-0.01, shape 6-7-grams, step size 0.4) ranks about as well off-domain but costs
  in-domain recall (0.73-0.74); square-root or fourth-root source weights were slightly worse
  (0.778, 0.781). Input dropout (0.5), 3 epochs instead of 6 and a separately normalised block
  for form and link features did not help. Thai (0.5) and the
  machine-translated SMS (0.7) stay poor when held out: nothing else in training is in those
  languages, and the shape features alone do not separate their spam well.
- Off-domain false positives: with e-mail held out (\`spamassassin\` row of the cross-source
  table) and on Turkish e-mail, ham crosses 0.8 more often than with the v1 model (FPR 6.7% and
  7.7%, were 1.1% and 2.1%), while recall there rose more (0.25 → 0.71 and 0.04 → 0.20), so
  precision at 0.8 fell on held-out SpamAssassin (0.90 → 0.82) and rose on Turkish e-mail
  (0.52 → 0.59). The shape n-grams of long messages with links, numbers and signatures resemble
  SMS and social spam when little e-mail ham is in training; contact forms that read like
  business e-mail are the case to watch. The shortcut probes also move more than before (an
  @mention or a phone number adds 0.06-0.07 on average, 0.3-0.4% flip).
- Vietnamese reviews: the "spam" there is off-topic junk in genuine-looking reviews, not
  advertising; ranking on it is weak (about 0.55) and slightly lower than with the v1 features.
- E-mail domains and author names in training forms are built label-blind (names are real
  YouTube commenter names, addresses are made from them), so the model learns little from the
  e-mail field; real disposable-address domains are not in its vocabulary.
- \`janitr_x\` labels are partly machine-made and include "promo" and "engagement bait", which
  overlap with ordinary posts; its in-domain precision is the lowest.
- Hash collisions: 2^18 buckets for a few hundred thousand distinct n-grams; rare n-grams share
  weights.
`;
};
