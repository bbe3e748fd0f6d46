// pnpm replay:feedback --data ../shared/data [--base-url URL --redis-url URL] [--background 100]
//                      [--sites vietnamese_spamreviews,…] [--max-rows 1200] [--runs 2]
//                      [--lag-rate 100 --lag-seconds 10]   (--runs 0: the report lag alone)
//
// The live replay (DESIGN.md: live replays; issue 57). Without --base-url it starts the stack as
// `pnpm start` runs it (each service its own process, a Redis and a NATS of its own); with it, it
// drives that stack and makes its workspaces in the Redis at --redis-url, as `sift config create`
// would. Each stand-in source is lived by a reporting site and a fresh one (replay/live.ts)
// beside --background classify calls a second from ten other workspaces; the whole replay runs
// --runs times on new workspaces and prints how far the runs differ. Then the report lag at
// --lag-rate reports a second beside 16 connections of classify. Every figure is the stack's
// answer; the load average is printed beside each timing.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { Keystore } from "@sift/keystore";
import { SPAM_STANDARD } from "@sift/contracts";
import { createRedis, redisReady, systemClock } from "@sift/runtime";
import { createKey, createPoster, startSift } from "@sift/testkit";
import { authorPool } from "@sift/training";
import {
  f3,
  quantile,
  reportLag,
  runLiveReplay,
  siteClient,
  standInItems,
  type SiteFigures,
  type StandIn,
} from "./replay/live.ts";

/** Stand-ins by kind; those the shipped model never trained on first (issue 51's unseen sets). */
const STAND_INS: Record<string, string> = {
  vietnamese_spamreviews: "comment box (reviews; never trained on)",
  turkish_sms: "SMS (never trained on)",
  indonesian_sms: "SMS (never trained on)",
  persian_email: "e-mail (never trained on)",
  tg_spam_umputun: "chat (a Russian Telegram group)",
  youtube_spam: "comment box (YouTube)",
  "whole:turkish_sms": "contact form (whole submissions around Turkish SMS; never trained on)",
  polyai_enquiries: "contact form, honest only (enquiries)",
};

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    "base-url": { type: "string" },
    "redis-url": { type: "string" },
    background: { type: "string", default: "100" },
    sites: { type: "string", default: Object.keys(STAND_INS).join(",") },
    "max-rows": { type: "string", default: "1200" },
    runs: { type: "string", default: "2" },
    "lag-rate": { type: "string", default: "100" },
    "lag-seconds": { type: "string", default: "10" },
  },
});
const log = (line: string) => console.log(line);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const dataDir = resolve(values.data!);
const maxRows = Number(values["max-rows"]);

const authors = authorPool(dataDir);
const standIns: StandIn[] = values.sites!.split(",").map((source) => ({
  source,
  kind: STAND_INS[source] ?? "other",
  items: standInItems(dataDir, source, authors, maxRows),
}));

// --- the stack ------------------------------------------------------------------------------
let baseUrl = values["base-url"];
let redisUrl = values["redis-url"];
let stopStack = async () => {};
if (!baseUrl) {
  const sift = await startSift();
  baseUrl = sift.baseUrl;
  redisUrl = sift.redisUrl;
  stopStack = sift.stop;
}
if (!redisUrl) throw new Error("--base-url needs --redis-url (where its workspaces are made)");
const redis = createRedis(redisUrl, "replay-feedback");
await redisReady(redis);
const keystore = new Keystore({ redis, clock: systemClock });
const newSite = async () => {
  const key = await createKey(keystore, { kind: "classify", plan: "paid", allowance: 100_000_000 });
  await keystore.updateWorkspace(key.workspaceId, { rateLimit: 1e6, burst: 1e6 });
  return key;
};
log(`stack ${baseUrl}; ${standIns.map((s) => `${s.source} ${s.items.length}`).join(", ")}; load ${load()}`);

// --- the runs -------------------------------------------------------------------------------
// A replay that fails still stops the stack it started (its servers are processes of their own).
const failed = async (err: unknown) => {
  console.error(err);
  redis.disconnect();
  await stopStack();
  process.exit(1);
};
process.on("unhandledRejection", (err) => void failed(err));
process.on("uncaughtException", (err) => void failed(err));

const runs: SiteFigures[][] = [];
for (let run = 0; run < Number(values.runs); run++) {
  log(`\n== run ${run + 1}, background ${values.background} classify/s; load ${load()}`);
  const { sites, background } = await runLiveReplay({
    baseUrl,
    newSite,
    standIns,
    background: Number(values.background),
    log,
  });
  log(`background: ${background.sent} calls, ${background.failed} failed; load ${load()}`);
  runs.push(sites);
}

// --- the report lag at a rate beside 16 connections of classify -----------------------------
const client = siteClient(createPoster(baseUrl, { maxSockets: 64 }));
const busy = await newSite();
const cannon = autocannon({
  url: `${baseUrl}/classify`,
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${busy.secretKey}` },
  body: JSON.stringify({
    content: { name: "Sam", message: "Is the blue armchair still for sale?" },
    model: SPAM_STANDARD,
  }),
  connections: 16,
  duration: Number(values["lag-seconds"]) + 5,
});
const lagItems = standIns.flatMap((s) => s.items.filter((_, i) => i % 3 === 0));
const lag = await reportLag(client, newSite, lagItems, {
  rate: Number(values["lag-rate"]),
  seconds: Number(values["lag-seconds"]),
});
const beside = await cannon;
const lagLoad = load();

const lagFigure = `p50 ${Math.round(quantile(lag.lags, 0.5))} ms, p99 ${Math.round(quantile(lag.lags, 0.99))} ms over ${lag.lags.length} probes of ${lag.sent} reports; classify ${Math.round(beside.requests.average)} req/s, ${beside.non2xx} non-2xx; load ${lagLoad}`;
if (runs.length === 0) {
  // --runs 0: the report lag alone (a quiet machine's minute, without the replay's half hour).
  log(`\nreport lag at ${values["lag-rate"]} reports/s beside 16 connections of classify: ${lagFigure}`);
  redis.disconnect();
  await stopStack();
  process.exit(0);
}

// --- the tables -----------------------------------------------------------------------------
const last = runs.at(-1)!;
const mean = (xs: number[]) =>
  xs.filter(Number.isFinite).reduce((a, b) => a + b, 0) / xs.filter(Number.isFinite).length;
log(
  "\n| site | kind | reports (spam / clean) | ROC AUC before → after | R@0.8 before → after | P@0.8 before → after | near-copies of spam caught | clean near-copies flagged by the report | fresh site AUC |",
);
log("| --- | --- | ---: | --- | --- | --- | ---: | ---: | ---: |");
for (const s of last)
  log(
    `| ${s.source} | ${s.kind} | ${s.reports.spam + s.reports.clean} (${s.reports.spam} / ${s.reports.clean}) | ${f3(s.before.auc)} → ${f3(s.after.auc)} | ${f3(s.before.recall)} → ${f3(s.after.recall)} | ${f3(s.before.precision)} → ${f3(s.after.precision)} | ${s.nearSpam.caught}/${s.nearSpam.n} | ${s.nearClean.flaggedByIt}/${s.nearClean.n} | ${f3(s.fresh.auc)} |`,
  );
const figures = (sites: SiteFigures[]) =>
  sites.flatMap(
    (s) =>
      [
        [`${s.source} AUC after`, s.after.auc],
        [`${s.source} R@0.8 after`, s.after.recall],
        [`${s.source} P@0.8 after`, s.after.precision],
        [`${s.source} near-copies caught`, s.nearSpam.n ? s.nearSpam.caught / s.nearSpam.n : Number.NaN],
      ] as const,
  );
const spread =
  runs.length > 1
    ? figures(runs[0]!).map(([name, first], i) => {
        const all = runs.map((r) => figures(r)[i]![1]);
        return { name, spread: Math.max(...all) - Math.min(...all), first };
      })
    : [];
const widest = spread.filter((s) => Number.isFinite(s.spread)).sort((a, b) => b.spread - a.spread)[0];
const nearAll = last.reduce((a, s) => ({ n: a.n + s.nearSpam.n, caught: a.caught + s.nearSpam.caught }), {
  n: 0,
  caught: 0,
});
const cleanByIt = last.reduce((a, s) => a + s.nearClean.flaggedByIt, 0);
// The goals on ranking and precision read the sites with both labels (an honest-only site has
// no ranking; its flagged count is in its row).
const judged = last.filter((s) => Number.isFinite(s.after.recall));
const goals: [string, string, boolean][] = [
  [
    "every reporting site: ROC AUC after ≥ before",
    judged.map((s) => `${s.source} ${(s.after.auc - s.before.auc).toFixed(4)}`).join(", "),
    judged.every((s) => !(s.after.auc < s.before.auc)),
  ],
  [
    "mean precision at 0.8 ≥ 0.90 / each ≥ 0.80",
    `${f3(mean(judged.map((s) => s.after.precision)))} / lowest ${f3(Math.min(...judged.map((s) => (Number.isFinite(s.after.precision) ? s.after.precision : 1))))}`,
    mean(judged.map((s) => s.after.precision)) >= 0.9 && judged.every((s) => !(s.after.precision < 0.8)),
  ],
  [
    "mean recall at 0.8 ≥ 0.75",
    f3(mean(judged.map((s) => s.after.recall))),
    mean(judged.map((s) => s.after.recall)) >= 0.75,
  ],
  [
    "near-copies of a reported spam scored spam ≥ 95 %",
    `${nearAll.caught}/${nearAll.n} (${((100 * nearAll.caught) / nearAll.n).toFixed(1)} %)`,
    nearAll.caught >= 0.95 * nearAll.n,
  ],
  ["near-copies of a reported clean flagged by it: none", `${cleanByIt}`, cleanByIt === 0],
  [
    `report lag p99 at ${values["lag-rate"]} reports/s beside 16 connections of classify ≤ 5 s`,
    lagFigure,
    quantile(lag.lags, 0.99) <= 5_000,
  ],
  [
    "two runs of the same replay within 0.01 on every figure",
    widest ? `widest: ${widest.name} ${f3(widest.spread)}` : "one run",
    spread.length > 0 && spread.every((s) => !(s.spread > 0.01)),
  ],
  [
    "another workspace's scores unchanged",
    last.every((s) => s.isolated) ? "all equal" : "CHANGED",
    last.every((s) => s.isolated),
  ],
];
log("\n| goal | figure | met |\n| --- | --- | --- |");
for (const [goal, figure, met] of goals) log(`| ${goal} | ${figure} | ${met ? "yes" : "**no**"} |`);
if (spread.length) {
  log("\nrun-to-run spread per figure (max − min over the runs):");
  log(spread.map((s) => `${s.name} ${f3(s.spread)}`).join("; "));
}
log(`\nload at the end ${load()}`);
redis.disconnect();
await stopStack();
process.exit(0);
