// Throwaway (issue 59 round 3; run as `npx tsx shared/training/scripts/round3-translations.mts --texts --out f.json`,
// the variants by the SIFT59_* variables read in translate/translations.ts and train/pipeline.ts at this commit): single-nested leave-one-family-out with the texts of the
// translated whole submissions, so the honest ones over 0.8 can be read.
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
const W = new URL("../src", import.meta.url).pathname;
const { loadCorpusInParallel } = await import(`${W}/data/corpus.ts`);
const { singleNested } = await import(`${W}/eval/single-nested.ts`);
const { goalsOf, wholeOf } = await import(`${W}/eval/report.ts`);
const { evaluate } = await import(`${W}/eval/metrics.ts`);
const { DEFAULT_OPTIONS } = await import(`${W}/train/pipeline.ts`);
const { translatedRows, ensureTranslations } = await import(`${W}/translate/translations.ts`);
const { loadSource } = await import(`${W}/data/sources.ts`);
const { wholeMessages, evalFold } = await import(`${W}/data/whole.ts`);
const { authorPool } = await import(`${W}/data/examples.ts`);
const { SOURCES } = await import(`${W}/data/catalog.ts`);
const { CALIBRATION_POPULATION } = await import(`${W}/train/calibrate.ts`);

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "/work/shared/data" },
    translations: { type: "string", default: `${process.env.HOME}/.cache/sift/translations` },
    out: { type: "string" },
    texts: { type: "boolean", default: false },
    opts: { type: "string", default: "{}" },
  },
});
const t0 = performance.now();
const log = (l: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1)}s] ${l}`);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
await ensureTranslations(values.data!, values.translations!, log);
const corpus = await loadCorpusInParallel(values.data!, { translations: values.translations, log, trainableOnly: true }, 2);
const options = { ...DEFAULT_OPTIONS, ...JSON.parse(values.opts!) };
log(`options ${JSON.stringify(JSON.parse(values.opts!))}; load ${load()}`);
const cross = singleNested(corpus, options, log);
const goals = goalsOf(evaluate([]), cross, []);
const whole = wholeOf(cross);
const pct = (n: number, d: number) => (d ? ((100 * n) / d).toFixed(2) : "-");
const en = whole.languages.find((l: any) => l.key === "en");
console.log(`en whole: honest ${en.honest} flagged ${pct(en.flagged, en.honest)}%  spam ${en.spam} caught ${pct(en.caught, en.spam)}%`);
for (const r of whole.translatedLanguages)
  console.log(`${r.key} whole: honest ${r.honest} flagged ${r.flagged} = ${pct(r.flagged, r.honest)}%  spam ${r.spam} caught ${pct(r.caught, r.spam)}%`);
console.log(`families' mean: honest flagged ${(whole.honestFlagged * 100).toFixed(2)}%, spam caught ${(whole.spamCaught * 100).toFixed(1)}%; mean R@0.8 ${goals.losoMeanRecall.toFixed(3)} mean AUC ${goals.losoMeanAuc.toFixed(3)}; load ${load()}`);
const summary: any = { options: JSON.parse(values.opts!), en, translated: whole.translatedLanguages, languages: whole.languages, families: whole.families, honestFlagged: whole.honestFlagged, spamCaught: whole.spamCaught, meanRecall: goals.losoMeanRecall, meanAuc: goals.losoMeanAuc, flaggedHonest: [] };
if (values.out) writeFileSync(values.out, JSON.stringify(summary, null, 1));
if (values.texts) {
  const { translatedSources } = await import(`${W}/translate/translations.ts`);
  const POP = new Set(Object.values(CALIBRATION_POPULATION).flat(2));
  const authors = authorPool(values.data!);
  for (const r of cross) {
    if (!POP.has(r.source) || !translatedSources().includes(r.source)) continue;
    const rows = loadSource(values.data!, r.source);
    const tr = translatedRows(values.translations!, r.source, rows);
    const msgs = wholeMessages(tr, authors, evalFold).filter((m: any) => m.fields.length > 0);
    const enough = (label: number) => msgs.filter((m: any) => m.label === label).length >= 50;
    const kept = msgs.filter((m: any) => enough(m.label));
    if (kept.length !== r.translatedWhole.length) throw new Error(`${r.source}: ${kept.length} messages, ${r.translatedWhole.length} preds`);
    kept.forEach((m: any, i: number) => {
      const p = r.translatedWhole[i];
      if (p.lang !== m.lang || p.label !== m.label) throw new Error("misaligned");
      if (m.label === 0 && p.score >= 0.8) summary.flaggedHonest.push({ source: r.source, lang: m.lang, score: p.score, shape: m.shape, text: m.text, content: m.content });
    });
  }
  summary.flaggedHonest.sort((a: any, b: any) => (a.lang < b.lang ? -1 : a.lang > b.lang ? 1 : b.score - a.score));
  for (const f of summary.flaggedHonest) console.log(`\n### ${f.lang} ${f.source} ${f.score.toFixed(3)} ${f.shape}\n${JSON.stringify(f.content)}`);
}
if (values.out) writeFileSync(values.out, JSON.stringify(summary, null, 1));
log(`done; load ${load()}`);
