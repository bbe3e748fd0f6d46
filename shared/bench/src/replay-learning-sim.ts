// pnpm replay:learning:sim --data ../shared/data [--sites turkish_sms,indonesian_sms,vietnamese_spamreviews]
//                      [--max-rows 1600] [--poison 5000] [--scale 100000] [--prior 2]
//
// Issue 53's goals, replayed against whatever model is committed, on the real stores (a Redis of
// its own; the kept reviews and versions as `sift model train` reads and writes them). Three
// sources the committed model never trained on stand in for three sites of a deployment (the
// issue's blog, channel and chat group are kept from us; Vietnamese e-commerce reviews are the
// comment-box stand-in): each source's rows, shuffled with a fixed seed (a site's traffic is not
// sorted by label), are split in two, one half a sharing site that reviews its first quarter
// (kept reviews) and sees the rest, the other half a fresh site of the same kind that reviews
// nothing. The deployment trains a candidate from the kept reviews and promotes it; then
//   - the fresh sites' rows are scored by the shipped and the promoted model,
//   - the sharing sites' rest by the promoted model under their own per-site layer,
//   - every public source's rows (an even sample, and its whole submissions) before and after,
//   - a fourth workspace reports 5,000 flipped labels of the same kinds of traffic: labels that
//     change on the fixed set (the three fresh sites and the sharing sites' rest) against the
//     candidate trained without it,
//   - `sift model train`'s work on 100,000 kept reviews is timed.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { SPAM_STANDARD, type NormalizedField, sigmoid } from "@sift/contracts";
import { prepareContent } from "@sift/content";
import {
  CORRECTION_BUCKETS,
  CORRECTION_RECORD_BYTES,
  encodeSignature,
  fingerprint,
  MAX_CORRECTION_REPORTS,
  reportBuckets,
  SiteCorrection,
} from "@sift/feedback";
import { ModelVersions, ReportExamples } from "@sift/learning";
import {
  CANARY_PATH,
  FEATURIZER_VERSION,
  featurize,
  MODEL_PATH,
  readLinearWeights,
  readModelMeta,
  type LinearWeights,
} from "@sift/model";
import { authorPool, formContent, loadCorpus, loadSource, SOURCES, type SourceName } from "@sift/training";
import { DEFAULT_PRIOR_OPTIONS, rocAuc, scoreLogOdds, trainDeploymentModel } from "@sift/learning";
import { createRedis, redisReady } from "@sift/runtime";
import { createKey, createPoster, startModelWorker, startServer, startStack } from "@sift/testkit";
import { replaySource, type ReplayItem } from "./replay-sim.ts";
import { seededRandom, shuffled } from "@sift/training";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    sites: { type: "string", default: "turkish_sms,indonesian_sms,vietnamese_spamreviews" },
    "max-rows": { type: "string", default: "1600" },
    poison: { type: "string", default: "5000" },
    scale: { type: "string", default: "100000" },
    prior: { type: "string" },
  },
});
const dataDir = resolve(values.data!);
const sites = values.sites!.split(",") as SourceName[];
const maxRows = Number(values["max-rows"]);
const options = { ...DEFAULT_PRIOR_OPTIONS, ...(values.prior ? { prior: Number(values.prior) } : {}) };
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const log = (line: string) => console.log(line);
const f3 = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(3);
const mean = (xs: Array<number | null>) => {
  const ok = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : NaN;
};
const THRESHOLD = Math.log(4);

const redisServer = await startServer("redis");
const redis = createRedis({ url: redisServer.url }, "replay-learning");
await redisReady(redis);
const shippedBytes = readFileSync(MODEL_PATH);
const shippedMeta = readModelMeta();
const shipped = readLinearWeights(shippedBytes);
log(
  `model ${shippedMeta.version} (featuriser v${FEATURIZER_VERSION}); prior ${options.prior}; load ${load()}`,
);

interface Row {
  label: 0 | 1;
  fields: NormalizedField[];
  ids: Int32Array;
  vals: Float32Array;
}
const authors = authorPool(dataDir);
/** A fixed shuffle (the one seeded generator), so every run plays the same sites. */
const shuffle = <T>(xs: T[], seed: number): T[] => shuffled(xs, seededRandom(seed));
const rowsOf = (source: SourceName): Row[] =>
  shuffle(
    loadSource(dataDir, source).flatMap((row, i) => {
      const prepared = prepareContent(formContent(row, i, authors).content);
      if (!prepared.ok || prepared.fields.length === 0) return [];
      const { ids, vals } = featurize(prepared.fields);
      return [{ label: row.label, fields: prepared.fields, ids, vals }];
    }),
    20_261_201,
  );

// --- the sites ---------------------------------------------------------------------------
const played = sites.map((source) => {
  const rows = rowsOf(source);
  const used = rows.slice(0, maxRows);
  const half = Math.floor(used.length / 2);
  const sharing = used.slice(0, half);
  return { source, sharing, fresh: used.slice(half), spare: rows.slice(maxRows) };
});
const keep = async (examples: ReportExamples, workspaceId: string, rows: Row[], from = 0) => {
  for (let i = 0; i < rows.length; i += 500)
    await Promise.all(
      rows.slice(i, i + 500).map((r, k) =>
        examples.keep(workspaceId, {
          label: r.label,
          featurizerVersion: FEATURIZER_VERSION,
          reviewedAt: from + i + k,
          ids: r.ids,
          vals: r.vals,
        }),
      ),
    );
};
const train = async (tag: string, extra?: (examples: ReportExamples) => Promise<void>) => {
  const examples = new ReportExamples({ redis, tag: `{${tag}}` });
  // Each site's reviews at times of their own (no two alike): the trainer reads the kept set in
  // time order, and reviews of equal times come in the order Redis numbered them, which a
  // script's first call (EVALSHA failing over to EVAL) can shuffle; SGD's result depends on it.
  for (const [k, site] of played.entries())
    await keep(
      examples,
      `ws_${site.source}`,
      site.sharing.slice(0, Math.floor(site.sharing.length / 4)),
      k * 1_000_000,
    );
  await extra?.(examples);
  const versions = new ModelVersions({ redis, model: `${SPAM_STANDARD}-${tag}` });
  const trained = await trainDeploymentModel({
    examples,
    versions,
    eligible: async () => true,
    shipped: { onnx: shippedBytes, meta: shippedMeta },
    canaryPath: CANARY_PATH,
    now: () => Date.now(),
    options,
  });
  const stored = await versions.get(trained.version);
  return { trained, model: readLinearWeights(stored!.onnx) };
};

const started = performance.now();
const { trained, model: promoted } = await train("sites");
log(
  `trained ${trained.version} on ${trained.info.reviews} reviews from ${trained.info.sites} sites in ${((performance.now() - started) / 1000).toFixed(1)} s; comparison wins: ${trained.comparison.wins} ${trained.comparison.losses.join("; ")}`,
);
const figures = (model: LinearWeights, rows: Row[]) => {
  const scored = rows.map((r) => ({ z: scoreLogOdds(model, r.ids, r.vals), label: r.label }));
  const spam = scored.filter((s) => s.label === 1);
  const flagged = scored.filter((s) => s.z >= THRESHOLD);
  const tp = flagged.filter((s) => s.label === 1).length;
  return {
    auc: rocAuc(scored),
    recall: spam.length ? tp / spam.length : NaN,
    precision: flagged.length ? tp / flagged.length : NaN,
  };
};
const h = comparisonTable(trained.comparison);
log(h);

log("\nfresh sites (review nothing), shipped → promoted:");
log("| site | rows (spam) | ROC AUC | recall at 0.8 | precision at 0.8 |");
log("| --- | ---: | --- | --- | --- |");
const freshAfter: Array<ReturnType<typeof figures>> = [];
for (const site of played) {
  const before = figures(shipped, site.fresh);
  const after = figures(promoted, site.fresh);
  freshAfter.push(after);
  log(
    `| ${site.source} | ${site.fresh.length} (${site.fresh.filter((r) => r.label).length}) | ${f3(before.auc)} → ${f3(after.auc)} | ${f3(before.recall)} → ${f3(after.recall)} | ${f3(before.precision)} → ${f3(after.precision)} |`,
  );
}

const replayItems = (model: LinearWeights, rows: Row[]): ReplayItem[] =>
  rows.map((r) => ({
    label: r.label,
    base: sigmoid(scoreLogOdds(model, r.ids, r.vals)),
    ids: [...r.ids],
    buckets: reportBuckets(r.ids),
    signature: encodeSignature(fingerprint(r.fields)),
    fields: r.fields,
  }));
log("\nsharing sites (reviewed their first quarter), the rest under their own learning: shipped → promoted");
log("(issue 53 part 4: the count layer alone → with the site's own correction; best: the highest recall");
log("at precision ≥ 0.90 any threshold reaches on those scores, what placement alone could reach):");
log(
  "| site | reviews (spam / clean) | ROC AUC | recall at 0.8 | precision at 0.8 | layer alone after: AUC / recall / precision | best recall at ≥ 0.90 |",
);
log("| --- | ---: | --- | --- | --- | --- | --- |");
const ownAfter: Array<{ recall: number; precision: number; auc: number; best: number }> = [];
const ownLayer: Array<{ recall: number; precision: number; auc: number; best: number }> = [];
for (const site of played) {
  const before = replaySource(replayItems(shipped, site.sharing));
  const items = replayItems(promoted, site.sharing);
  const after = replaySource(items);
  const layer = replaySource(items, undefined, "layer");
  ownAfter.push({ ...after.learned });
  ownLayer.push({ ...layer.learned });
  log(
    `| ${site.source} | ${after.reports.spam + after.reports.clean} (${after.reports.spam} / ${after.reports.clean}) | ${f3(before.learned.auc)} → ${f3(after.learned.auc)} | ${f3(before.learned.recall)} → ${f3(after.learned.recall)} | ${f3(before.learned.precision)} → ${f3(after.learned.precision)} | ${f3(layer.learned.auc)} / ${f3(layer.learned.recall)} / ${f3(layer.learned.precision)} | ${f3(layer.learned.best)} → ${f3(after.learned.best)} |`,
  );
}

// --- the public families, before and after ------------------------------------------------
log("\nthe public data's families (an even sample of each source's rows, and its whole submissions):");
const corpus = loadCorpus(dataDir, { trainableOnly: true });
const evenly = <T>(xs: readonly T[], n: number): T[] =>
  xs.length <= n
    ? [...xs]
    : Array.from({ length: n }, (_, i) => xs[Math.floor(((i + 0.5) * xs.length) / n)]!);
const familyDrops: number[] = [];
log("| part | rows | ROC AUC shipped → promoted |");
log("| --- | ---: | --- |");
for (const [source, examples] of corpus) {
  for (const whole of [false, true]) {
    const part = evenly(
      examples.filter((e) => Boolean(e.whole) === whole),
      600,
    ).map((e) => ({ ids: e.features.ids, vals: e.features.vals, label: e.label, fields: [] }));
    if (part.length === 0) continue;
    const before = figures(shipped, part).auc;
    const after = figures(promoted, part).auc;
    if (before !== null && after !== null) familyDrops.push(before - after);
    log(
      `| ${source}${whole ? "/whole" : ""} (${SOURCES[source].family}) | ${part.length} | ${f3(before)} → ${f3(after)} |`,
    );
  }
}

// --- poisoning -----------------------------------------------------------------------------
const poisonCount = Number(values.poison);
const fixed = played.flatMap((s) => [...s.fresh, ...s.sharing.slice(Math.floor(s.sharing.length / 4))]);
const spare = played.flatMap((s) => s.spare);
const poisonRows = Array.from({ length: poisonCount }, (_, i) => spare[i % spare.length]!).map((r) => ({
  ...r,
  label: (1 - r.label) as 0 | 1,
}));
const { model: poisoned } = await train("poisoned", (examples) =>
  keep(examples, "ws_poison", poisonRows, 10_000_000),
);
const labelOf = (model: LinearWeights, r: Row) => scoreLogOdds(model, r.ids, r.vals) >= THRESHOLD;
const changed = fixed.filter((r) => labelOf(promoted, r) !== labelOf(poisoned, r)).length;
log(
  `\npoisoning: a workspace reporting ${poisonCount} flipped labels (${spare.length} distinct rows of the sites' kinds): ${changed} of ${fixed.length} labels on the fixed set changed (${((100 * changed) / fixed.length).toFixed(2)} %); load ${load()}`,
);

// --- 100,000 kept reviews -------------------------------------------------------------------
const scale = Number(values.scale);
const pool = [...corpus.values()].flat();
const bulk = new ReportExamples({ redis, tag: "{scale}" });
const perSite = 5_000;
for (let i = 0; i < scale; i += perSite) {
  const rows = Array.from(
    { length: Math.min(perSite, scale - i) },
    (_, k) => pool[(i + k) % pool.length]!,
  ).map((e) => ({
    label: e.label,
    fields: [],
    ids: e.features.ids,
    vals: e.features.vals,
  }));
  await keep(bulk, `ws_bulk_${i / perSite}`, rows, i);
}
const kept = await bulk.stats();
const t0 = performance.now();
const big = await trainDeploymentModel({
  examples: bulk,
  versions: new ModelVersions({ redis, model: `${SPAM_STANDARD}-scale` }),
  eligible: async () => true,
  shipped: { onnx: shippedBytes, meta: shippedMeta },
  canaryPath: CANARY_PATH,
  now: () => Date.now(),
  options,
});
const trainSeconds = (performance.now() - t0) / 1000;
log(
  `\nsift model train on ${kept.kept} kept reviews from ${kept.sites} sites: ${trainSeconds.toFixed(1)} s (${big.info.reviews} trained, load ${load()})`,
);

// --- the site correction's cost (part 4) ---------------------------------------------------
// A workspace at the log's cap: the fit a worker runs when it loads the state, and the per-request
// adjustment (one table read per distinct bucket), on real rows of the public data.
const capped = Array.from({ length: MAX_CORRECTION_REPORTS }, (_, i) => pool[(i * 7919) % pool.length]!).map(
  (e) => ({
    label: e.label,
    logOdds: scoreLogOdds(shipped, e.features.ids, e.features.vals),
    buckets: Uint16Array.from(reportBuckets(e.features.ids).slice(0, CORRECTION_BUCKETS)),
  }),
);
const fitStart = performance.now();
const fitted = SiteCorrection.fit(capped)!;
const fitMs = performance.now() - fitStart;
const probes = pool.slice(0, 5_000);
const adjustStart = performance.now();
let sink = 0;
for (const p of probes) sink += fitted.adjustment(p.features.ids);
const adjustUs = ((performance.now() - adjustStart) * 1000) / probes.length;
log(
  `\nthe site correction: fitted on ${capped.length} reports in ${fitMs.toFixed(0)} ms (a worker, once per state load); ${adjustUs.toFixed(2)} µs a request (${probes.length} submissions, checksum ${sink.toFixed(1)}); its log ${MAX_CORRECTION_REPORTS} × ${CORRECTION_RECORD_BYTES} B = ${((MAX_CORRECTION_REPORTS * CORRECTION_RECORD_BYTES) / 1e6).toFixed(2)} MB a workspace at most (load ${load()})`,
);

// --- a promotion under load -----------------------------------------------------------------
// The real stack on this Redis (gateway → classify → NATS → one model worker polling the serving
// key every 200 ms); 16 connections classify while the promoted candidate goes into service.
const nats = await startServer("nats");
const stack = await startStack({ redisUrl: redisServer.url, natsUrl: nats.url });
const worker = await startModelWorker(nats.url, undefined, { redisUrl: redisServer.url, modelPollMs: 200 });
const serving = new ModelVersions({ redis, model: SPAM_STANDARD });
const stored = await new ModelVersions({ redis, model: `${SPAM_STANDARD}-sites` }).get(trained.version);
await serving.add(stored!, Date.now());
const site = await createKey(stack.keystore, { kind: "classify", plan: "paid", allowance: 100_000_000 });
// A rate limit far above this load (as pnpm bench's workspaces have): the row counts failures, not 429s.
await stack.keystore.updateWorkspace(site.workspaceId, { rateLimit: 1e6, burst: 1e6 });
const poster = createPoster(stack.gatewayUrl, { maxSockets: 16 });
const body = JSON.stringify({
  content: { message: "Is the armchair still for sale?" },
  model: SPAM_STANDARD,
});
const statuses: number[] = [];
let loading = true;
const loadStart = performance.now();
const clients = Promise.all(
  Array.from({ length: 16 }, async () => {
    while (loading) {
      const answer = await poster
        .post("/classify", body, {
          authorization: `Bearer ${site.secretKey}`,
          "content-type": "application/json",
        })
        .catch(() => ({ status: 0 }));
      statuses.push(answer.status);
    }
  }),
);
await new Promise((r) => setTimeout(r, 2_000));
const promotedAt = performance.now();
await serving.promote(trained.version);
while (worker.worker.version(SPAM_STANDARD) !== trained.version && performance.now() - promotedAt < 10_000)
  await new Promise((r) => setTimeout(r, 20));
const switchMs = performance.now() - promotedAt;
await new Promise((r) => setTimeout(r, 2_000));
loading = false;
await clients;
poster.close();
const failed = statuses.filter((x) => x !== 200).length;
const byStatus = Object.entries(
  statuses.reduce<Record<number, number>>((acc, x) => ({ ...acc, [x]: (acc[x] ?? 0) + 1 }), {}),
)
  .map(([status, n]) => `${status}: ${n}`)
  .join(", ");
const switched = worker.worker.version(SPAM_STANDARD) === trained.version;
log(
  `\na promotion under load: ${statuses.length} classify requests at 16 connections over ${((performance.now() - loadStart) / 1000).toFixed(1)} s, ${failed} failed (${byStatus}); the worker switched ${switched ? `in ${switchMs.toFixed(0)} ms` : "NOT within 10 s"} (load ${load()})`,
);
await worker.stop();
await stack.stop();
await nats.stop();

// --- goals ---------------------------------------------------------------------------------
const freshRecall = mean(freshAfter.map((f) => f.recall));
const freshPrecision = mean(freshAfter.map((f) => f.precision));
const commentLike = played.findIndex((s) => s.source === "vietnamese_spamreviews");
const ownRecall = mean(ownAfter.map((f) => f.recall));
const ownPrecision = mean(ownAfter.map((f) => f.precision));
const worstDrop = Math.max(...familyDrops);
const rows = [
  [
    "a fresh site after the promotion: mean recall at 0.8 (mean precision)",
    "≥ 0.60 at ≥ 0.90",
    `${f3(freshRecall)} (${f3(freshPrecision)})`,
    freshRecall >= 0.6 && freshPrecision >= 0.9,
  ],
  [
    "the same, comment-box traffic (vietnamese_spamreviews): ROC AUC",
    "≥ 0.88",
    commentLike >= 0 ? f3(freshAfter[commentLike]!.auc) : "-",
    commentLike >= 0 && (freshAfter[commentLike]!.auc ?? 0) >= 0.88,
  ],
  [
    "the reporting sites themselves: mean recall at 0.8 (mean precision)",
    "≥ 0.80 at ≥ 0.90",
    `${f3(ownRecall)} (${f3(ownPrecision)})`,
    ownRecall >= 0.8 && ownPrecision >= 0.9,
  ],
  [
    "the public families and whole submissions: largest ROC AUC drop",
    "≤ 0.01",
    f3(worstDrop),
    worstDrop <= 0.01,
  ],
  [
    "one workspace reporting 5,000 flipped labels: other sites' labels changed",
    "≤ 1 %",
    `${((100 * changed) / fixed.length).toFixed(2)} %`,
    changed / fixed.length <= 0.01,
  ],
  [
    "the reporting sites, the count layer alone (before part 4): mean recall at 0.8 (mean precision)",
    "(≥ 0.80 at ≥ 0.90)",
    `${f3(mean(ownLayer.map((f) => f.recall)))} (${f3(mean(ownLayer.map((f) => f.precision)))})`,
    mean(ownLayer.map((f) => f.recall)) >= 0.8 && mean(ownLayer.map((f) => f.precision)) >= 0.9,
  ],
  [
    "the reporting sites: the most any placement of 0.8 could reach (mean best recall at precision ≥ 0.90)",
    "(≥ 0.80)",
    f3(mean(ownAfter.map((f) => f.best))),
    mean(ownAfter.map((f) => f.best)) >= 0.8,
  ],
  [
    `sift model train on ${kept.kept} kept reviews`,
    "≤ 5 min",
    `${trainSeconds.toFixed(1)} s`,
    trainSeconds <= 300,
  ],
  [
    "a promotion under load (16 connections classify through the gateway): failed requests",
    "0",
    `${failed} of ${statuses.length}${switched ? "" : " (no switch)"}`,
    failed === 0 && switched && statuses.length > 0,
  ],
] as const;
log(`\n| goal | target | figure | met |\n| --- | --- | --- | --- |`);
for (const [goal, target, figure, met] of rows)
  log(`| ${goal} | ${target} | ${figure} | ${met ? "yes" : "**no**"} |`);
log(`load ${load()}`);
redis.disconnect();
await redisServer.stop();

function comparisonTable(c: typeof trained.comparison): string {
  const line = (name: string, s: (typeof c.heldOut)["inService"], k: (typeof c.heldOut)["candidate"]) =>
    `| ${name} | ${s.n} (${s.spam}) | ${f3(s.auc)} → ${f3(k.auc)} | ${f3(s.recall)} → ${f3(k.recall)} | ${f3(s.precision)} → ${f3(k.precision)} | ${f3(s.cleanFlagged)} → ${f3(k.cleanFlagged)} |`;
  return [
    "| comparison | rows (spam) | ROC AUC in service → candidate | recall at 0.8 | precision at 0.8 | clean flagged |",
    "| --- | ---: | --- | --- | --- | --- |",
    line("held-out reviews", c.heldOut.inService, c.heldOut.candidate),
    ...(c.canary ? [line("canary", c.canary.inService, c.canary.candidate)] : []),
  ].join("\n");
}
