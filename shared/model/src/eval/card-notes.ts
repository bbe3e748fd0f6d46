import type { ModelMeta } from "../artifact.ts";
import { SIGNAL_VALUE } from "../features/featurize.ts";

/** The card's prose: how the model works. Figures that change with a retrain are not spelled here. */
export const whatItIs = (meta: ModelMeta): string => `## What it is

A hashed linear model over character and word n-grams plus dense form signals, trained in
TypeScript (\`shared/model/src/train\`) and exported to ONNX by hand (\`shared/model/src/onnx\`).

- **Input**: the fields the classify service sends (after \`@sift/content\` normalisation: no
  \`_\` or tracking fields, no tracking parameters in links). The featuriser
  (\`shared/model/src/features/featurize.ts\`) is the one module both trainer and worker run.
- **n-gram features** (hashed with FNV-1a into 2^18 buckets, at most ${meta.maxFeatures} per submission,
  log-counts, L2-normalised): field-name tokens; each field's role (name, e-mail, link, text);
  for text: character 2-4-grams, word unigrams, and 2-5-grams of the text's *shape* (each run of
  letters becomes \`a\`, symbols and emoji \`e\`, digits, punctuation and currency signs stay)
  plus the link count; link hosts and TLDs; e-mail domains, TLDs and the shape of the local
  part; author-name n-grams. Text is NFKC-folded, lower-cased, stripped of combining marks on
  Latin letters only, digit runs become a length class, long character repeats are cut.
- **Form signals** (\`features/signals/\`, each with its own unit test), hashed into the same
  buckets but outside the L2 normalisation, each worth ${SIGNAL_VALUE} so a signal counts the same
  in a one-line comment and a long letter: links (HTML anchors, BBCode \`[url=…]\`, bare
  \`example.com\` domains, share of the text that is links, three or more links, TLD class:
  generic, country, cheap, other; URL shortener; on a spam-site list); a link, \`@\`, brand or
  business word, listed phrase, digits, capitals or more than four words in the name field;
  e-mail (throw-away service, free mail, TLD class, digit runs, a local part that shares no
  three letters with the name); phone numbers (toll-free North American prefixes, numbers on
  the SmokeDetector list, helpline phrasing with or without a number); money, discounts and price
  words; outreach pitch elements (SEO, traffic, ranking, backlinks, guest posts, web design,
  marketing, leads, "quick question"/"I noticed", "your website", free audit/quote, outsourcing;
  counted 1, 2, 3+); praise, and praise followed by a link; hits of the WordPress comment-spam
  phrase list and the SmokeDetector keyword list (binned counts); shouting, \`!!!\`, repetition,
  Latin/Cyrillic mixing inside a word, gibberish (unpronounceable long words), 30-letter tokens.
- **Public lists** (\`shared/model/lists/\`, notices in \`THIRD_PARTY_NOTICES\`, rebuilt by
  \`tsx shared/model/src/lists-cli.ts --data ../shared/data\`): WordPress comment blacklist
  phrases and domains (MIT), SmokeDetector keywords, websites and numbers (MIT; only entries that
  are plain words, host names or digits once ported from Python regex syntax), throw-away e-mail
  domains (CC0), URL shorteners (CC-BY-SA-4.0, its own file with its licence). Loaded once when
  the featuriser is imported (worker start), matched by whole words and host suffixes. A match is
  a feature with a learned weight, never a verdict: the lists' authors warn a bare match
  over-blocks (the WordPress list holds "jacket" and "up date").
- **Graph**: \`Gather(W, ids) · vals → ReduceSum → + bias → · scale + shift → Sigmoid\`, inputs
  \`ids\` int64 [N, L] and \`vals\` float [N, L] padded per batch: a sparse dot product.
- **Training**: AdaGrad logistic regression, ${meta.options["epochs"]} epochs, L2 ${meta.options["l2"]}, seeded shuffle.
  Each source weighs ${meta.options["sourcePower"] === 0 ? "the same" : `in proportion to its size to the power ${meta.options["sourcePower"]}`}, spam and ham equally within
  a source. Rows become form-shaped examples: one in five a bare string, the rest a form
  (\`name/email/message\`, WordPress \`comment_author/comment_author_email/comment_content\`,
  Contact Form 7 \`your-*\`, or \`name/message\`) with the row's real author where the set has one
  and otherwise a real YouTube commenter name drawn label-blind, plus an address made from the
  name. One row in five gets an ordinary link appended and one in ten a phone number,
  label-blind, so the mere presence of a link or number proves nothing by itself.
- **Threshold placed out of domain**: score = σ(a·z + b). Each source family is held out in
  turn and scored by a model trained on the others; \`a\` is Platt scaling on those pooled
  out-of-domain logits and \`b\` puts 0.8 at the lowest logit above which their pooled precision
  (counting examples as they come) never drops below ${meta.options["targetPrecision"]}. So 0.8 is where
  precision holds on a source the model has not seen, as a web form is, not where it holds
  in-domain. Both maps are monotone: the score is a rank, and \`spam\` iff score ≥ 0.8.`;

/** What the figures do not show, and what was tried and not shipped. */
export const limitations = `## Limitations

- **The out-of-domain precision goal is not reachable with this ranker.** Issue 16 asks for
  pooled leave-one-source-out precision of at least 0.93 at 0.8. On the pooled leave-one-source-out
  scores of this featuriser (first full run), precision is 0.94 over the top 0.1% of examples, 0.91-0.92 down to
  the top 1% (recall 0.03) and 0.90 at the top 5% (recall 0.12), then falls (0.72 at 10%). Most of
  the ham at the top is SpamAssassin mailing-list mail scored by a model that has seen no e-mail
  ham (long texts with links, prices and numbers), then Janitr posts. A 0.93 target therefore put
  0.8 above every training example (first full run: nothing labelled spam anywhere, the five
  examples at 0.000-0.012), so the shipped calibration targets 0.90, the highest level the pooled
  curve holds over a useful range. Evaluated with that rule nested one family short, the
  threshold lands higher still: pooled out-of-domain precision 0.975 but recall 0.015 and a mean
  recall of 0.026 (tables above). The final model's own pool (all eight families) places 0.8
  lower, which is why the SEO example crosses it; how far lower on real forms is unknown. The
  remaining gap is in the ranking (pooled out-of-domain ROC AUC under 0.7), not in the threshold.
- **The threshold stays conservative in-domain too**: in-domain recall at 0.8 is about 0.41 (goal
  0.85) at precision 0.99, because 0.8 is now placed for sources the model has not seen.
- **Turkish e-mail** (unseen): 7% of its ham crosses 0.8 (goal: at most 3%): long business mail
  with prices, links and job-application wording looks like the training spam.
- **Shortcut probes**: a URL shortener, a price or praise with a link added to an ordinary
  message move the score by about 0.3 on average and flip 0.4-1.6% of held-out ham to spam; these
  signals weigh as intended on spam but an honest enquiry that quotes a budget or a bit.ly link
  pays for it. A second stage over the signals was tried to fix this and lost ranking on
  unseen sources (below); real form ham, not more of these sets, is what would teach it.
- **Form signals are learned from data that is not form traffic.** Their weights come from the
  training sources: a link on a cheap TLD, a URL shortener, a listed site, a toll-free number,
  helpline words beside a number, money, discounts, outreach pitch elements, listed phrases and
  Latin/Cyrillic mixing all weigh towards spam; a link in the name field and mixed scripts across
  words weigh against it (YouTube and SpamAssassin authors), which is an artefact of those sets.
  E-mail signals are close to noise: addresses in training forms are made from the author name
  with a provider drawn label-blind, so throw-away domains and unrelated local parts never occur
  with a label the model could learn from. Real form traffic with real addresses is what they need.
- **SmokeDetector lists and Stack Exchange spam share an origin**: the keyword, site and number
  lists were written by the people who deleted that spam, so their weights are learned partly on
  the spam they were built from and are likely too high for other sources.
- **Stack Exchange shortcuts**: links to and names of Stack Exchange sites and a trailing \`?\`
  are removed from both classes; the topic difference (meta ham talks about tags, moderators and
  questions) remains, and the titles' phone numbers are kept because tech-support numbers are
  real form spam. Both sets are one family in leave-one-source-out, so neither flatters the other.
- Languages: trained on English (SMS, e-mail, social media, Q&A), Hindi, German, French
  (machine-translated SMS), Thai and Russian (Telegram); other languages get only character
  n-gram, shape, link and signal evidence (see the unseen sets).
- \`janitr_x\` labels are partly machine-made and include "promo" and "engagement bait".
- Hash collisions: 2^18 buckets; a signal that shares a bucket with an n-gram shares its weight.

## What was tried and not shipped

Quick runs (\`pnpm eval --quick\`: 3 epochs, ranking only), mean leave-one-source-out ROC AUC over
the ten sources / mean over the five unseen sets:

- v1 featuriser before the Stack Exchange sets (eight sources): 0.778 / 0.741.
- Form signals outside the n-grams' normalisation, each worth 0.1: 0.795 / 0.770; 0.3:
  0.802 / 0.799; 1.0 (shipped): 0.805 / 0.803; 2: see the second round.
- 0.8 placed at pooled out-of-domain precision 0.95 (the first full run, with a one-family-short
  margin over 0.93): no example anywhere crossed 0.8 (see the first limitation). 0.94 was not run.
- Real sender addresses from the SpamAssassin headers for the e-mail signals: not attempted
  (2002 mailing-list domains would teach the source, not the label).

Second round (spam-standard 1.3 kept): each variant measured on the ten sources' leave-one-source-out
ROC AUC of the raw logit, models trained with 3 epochs as in \`--quick\` but with no calibration
(ranking only), so the three figures are mean of sources / pooled (raw logits of the eight held-out
models together) / mean over the five unseen sets scored by a model on every trainable source.
The same protocol gives the shipped settings (at 3 epochs) 0.805 / 0.794 / 0.813. The machine was shared with
three other engineers' benchmarks and training runs (load average 11-18 on 2 cores), which made
each run slow but does not change the figures (every run is deterministic). The figures come
from \`tsx shared/model/scripts/second-round.ts --data ../shared/data --run settings|stack|threshold\`
(\`--signals-only\` for the second stage without structure and length inputs).

- Training settings: 6 epochs (as shipped) 0.803 / 0.836 / 0.808; L2 0.002: 0.800 / 0.799 / 0.798;
  L2 0.01: 0.805 / 0.789 / 0.823; L2 0.02: 0.801 / 0.782 / 0.826; step 0.1: 0.804 / 0.811 / 0.823;
  step 0.5: 0.809 / 0.772 / 0.808; sources weighted by the square root of their size: 0.801 /
  0.771 / 0.819. Every setting sits within 0.005 of the shipped one on the mean of sources, and the
  ones that gain there lose on the pool or the unseen sets: no change.
- Form signals worth 2 instead of 1 (\`SIGNAL_VALUE\` in the featuriser edited for the run):
  0.805 / 0.797 / 0.811 (no change).
- The average of the seven models trained without the held-out family and one more (the models
  the pipeline trains anyway) instead of one model without it: 0.801 mean of sources.
- Only buckets that occur in at least two source families may carry weight (a platform's own
  words left at zero, so every family's labels are explained by what the families share):
  0.809 / 0.797 / 0.818. The best variant of the round, but +0.004 is the size of the
  differences between training settings above, and a new model would have needed the full
  train-and-evaluate cycle again on the loaded machine; recorded, not shipped. Three families:
  not finished.
- **Second stage** (the idea the first round left open): the first stage's logit z plus a
  one-hidden-layer ReLU network, out = a·z + b + v·relu(W·[z, d] + c), over 68 dense inputs read
  off the hashed ids (the 53 form signals' buckets, 14 for field roles, field count and link
  count, and the log of the number of features), trained with Adam on out-of-domain logits (each row's z from a model
  that never saw its family, so the network learns how far to trust z and the signals on an
  unseen source); in the evaluation the network never saw the held-out family either. 16 hidden
  units: 0.774 / 0.776 / 0.803; 8: 0.789 / 0.796 / 0.799; 32: 0.758 / 0.711 / 0.784; 16 with
  L2 0.001: 0.779 / 0.785 / 0.818 (these four without the direct weights d below, which the
  script now always has, so a rerun gives slightly different figures). With only z and the signals (no structure or length inputs)
  and a direct weight d per input (out gains d·signals): no hidden units (a logistic regression on z and the signals):
  0.791 / 0.770 / 0.801; 4: 0.783 / 0.794 / 0.802; 8: 0.777 / 0.783 / 0.796. It gains on Thai
  SMS (+0.01 to +0.04), Instagram (+0.01 to +0.03) and the translated SMS (+0.02 to +0.03) and
  loses most on SpamAssassin (0.924 to 0.71-0.86), Stack Exchange spam (0.865 to 0.68-0.82) and
  Janitr (0.683 to 0.64-0.66): how the signals combine differs from one family to the next, and
  what seven families agree on misleads on the eighth. Not shipped, and no ONNX graph was built
  for it.
- **Where 0.8 is placed**, nested exactly as the evaluation (placed on the pool of the models
  trained without the held-out family and one more, applied to the model without the held-out
  family): pooled precision / pooled recall / mean recall over the ten sources at 0.8, precision
  counted by example: target 0.80: 0.694 / 0.182 / 0.259 (1,078 SpamAssassin ham over 0.8);
  0.85: 0.869 / 0.049 / 0.085; 0.88: 0.919 / 0.031 / 0.054; 0.90 (shipped): 0.975 / 0.019 /
  0.031; 0.93: 1.000 / 0.002 / 0.004. Counted per source (every source weighing the same, so
  the big sets do not set the level): 0.80: 0.836 / 0.137 / 0.184; 0.85: 0.873 / 0.045 / 0.073;
  0.88: 0.921 / 0.030 / 0.050; 0.90: 0.977 / 0.019 / 0.030; 0.93: 0.978 / 0.002 / 0.004. No
  placement and neither weighting holds pooled precision 0.93 with a mean recall near 0.35 (the
  two goals together need a better ranking, not a better threshold); per-source weighting only
  changes the picture at low targets, where it trades a third of the recall for fewer
  SpamAssassin false positives. The shipped rule stays: 0.90 counted by example, the lowest
  target whose nested evaluation clears 0.93.
- In-domain recall 0.85 at 0.8 and out-of-domain precision 0.93 at 0.8 pull one threshold two
  ways: placed in-domain (\`--quick\`), in-domain recall is 0.882 at precision 0.923 while
  pooled out-of-domain precision falls to 0.658.
- Not tried, on purpose: a larger hash space (2^20) or new n-gram kinds (word bigrams,
  character 5-grams; the first round found they memorise a source's templates). Both change
  which bucket a feature lands in, and the workspaces' learned layers (\`@sift/feedback\`) are
  stored per bucket: every workspace would lose what it has learned, for a gain no run here
  suggested.

Third round, **family consensus** (spam-standard 1.3 kept): one linear model per source family,
trained on that family's examples only (same featuriser, trainer and settings, spam and ham
weighed equally), put on a common scale and averaged into one linear model, so the graph and the
worker would not change. A word only one family uses gets weight from one model (1/K of it); a cue
several families share adds up. When a family is held out its model is simply absent. Same
protocol and figures as the second round (the shipped settings again 0.805 / 0.794 / 0.813);
a variant had to gain 0.01 on the mean of sources without losing more than 0.005 on the unseen
sets to be trained and evaluated in full. From
\`tsx shared/model/scripts/second-round.ts --data ../shared/data --run consensus\`:

- The average alone, each family's model divided by the standard deviation of its logits on its
  own examples: 0.764 / 0.813 / 0.795; divided by its weight norm instead: 0.758 / 0.819 / 0.798.
  It gains on the SMS family (\`sms_spam\` 0.903 to 0.943, the translations 0.824 to 0.861) and
  Instagram (0.814 to 0.831), and on the pool (models on one scale give comparable logits), but
  loses on Thai SMS (0.705 to 0.549), Stack Exchange spam (0.865 to 0.758) and titles (0.726 to
  0.635), SpamAssassin (0.924 to 0.874), YouTube (0.757 to 0.717) and Janitr (0.683 to 0.651).
- The pooled model plus λ times the average, both divided by their logit spread: λ 0.5:
  0.805 / 0.807 / 0.815 (the best of the round, +0.0001 on the mean of sources); 1: 0.803 /
  0.815 / 0.815; 2: 0.798 / 0.821 / 0.813. The more consensus, the better the pool and the
  worse the mean of sources.
- The pooled model's weights gated by the family models' sign agreement (a family model touches
  a bucket when its weight there is not zero): kept only where more than half of the family
  models that touch the bucket share the pooled sign: 0.783 / 0.787 / 0.783 (Telegram 0.847 to
  0.730); multiplied by that share: 0.793 / 0.793 / 0.802; multiplied by the share of all the
  family models sharing its sign (a bucket one family touches keeps 1/K): 0.796 / 0.802 / 0.816.
- Group-DRO-style reweighting: after each epoch each family's examples weigh in proportion to
  exp(η · its mean training loss so far), so the family explained worst weighs most next:
  η 2: 0.805 / 0.803 / 0.809 (-0.0003 on the mean of sources); 5: 0.801 / 0.811 / 0.802;
  10: 0.794 / 0.816 / 0.792.

No variant comes near +0.01 on the mean of sources, so none was trained in full. The likely
reason: what one family's model learns alone is mostly its own platform, and averaging after
training keeps less of the shared evidence than one model fitted on the families together.
Consensus mainly helps the pooled figure.
`;
