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
  pays for it. A second stage over the signals, trained against such ham, is the place to fix it.
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
  0.802 / 0.799; 1.0 (shipped): 0.805 / 0.803. Larger values were not tried.
- 0.8 placed at pooled out-of-domain precision 0.95 (the first full run, with a one-family-short
  margin over 0.93): no example anywhere crossed 0.8 (see the first limitation). 0.94 was not run.
- Not attempted for lack of time: a second stage (a small tree ensemble or MLP over the dense
  signals exported to ONNX); per-source-balanced precision for the threshold; real sender
  addresses from the SpamAssassin headers for the e-mail signals (2002 mailing-list domains
  would teach the source, not the label).
`;
