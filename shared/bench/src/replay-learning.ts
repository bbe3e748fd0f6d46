// pnpm replay:learning --data ../shared/data [--sites a,b,c] [--max-rows 1200] [--background 100] [--runs 2]
//
// The deployment's model, lived through a running stack (issue 57, DESIGN: live replays). Each
// run starts the stack as `pnpm start` does (one process per service, a Redis and a NATS of its
// own: a promotion changes the deployment, so a second run starts from the same place). Each
// stand-in's rows, shuffled with a fixed seed, are split in two: a site that shares its reports
// (`sift workspace set --share-reports on`) and reports its first quarter through POST /feedback,
// and a fresh site of the same kind that reviews nothing. The operator then runs `sift model
// train` and, where the candidate won its comparison, `sift model promote` (the CLI, as a
// process against the stack's Redis). What is printed is what the stack answered, beside other
// workspaces' classify calls: the fresh sites before and after the promotion, and the sharing
// sites' own traffic after it. The in-process simulation of the same protocol, for sweeps, is
// `pnpm replay:learning:sim`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Keystore } from "@sift/keystore";
import { createRedis, redisReady, systemClock } from "@sift/runtime";
import { createKey, createPoster, ROOT, startSift } from "@sift/testkit";
import { authorPool } from "@sift/training";
import {
  backgroundLoad,
  f3,
  pool,
  scoresOf,
  settled,
  siteClient,
  standInItems,
  type Scores,
} from "./replay/live.ts";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    sites: {
      type: "string",
      default: "vietnamese_spamreviews,turkish_sms,indonesian_sms,persian_email,whole:turkish_sms",
    },
    "max-rows": { type: "string", default: "1200" },
    background: { type: "string", default: "100" },
    runs: { type: "string", default: "2" },
    /** Promote the candidate even where it lost (`sift model promote --force`), to see what that does. */
    force: { type: "boolean", default: false },
  },
});
const log = (line: string) => console.log(line);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const dataDir = resolve(values.data!);
const authors = authorPool(dataDir);

const standIns = values.sites!.split(",").map((source) => ({
  source,
  items: standInItems(dataDir, source, authors, Number(values["max-rows"])),
}));

/** `sift …` as an operator runs it, against the stack's Redis; its JSON answer. */
const sift = (redisUrl: string, args: string[]): unknown => {
  const run = spawnSync(`${ROOT}node_modules/.bin/tsx`, ["shared/cli/src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, REDIS_URL: redisUrl },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`sift ${args.join(" ")}: ${run.stderr || run.stdout}`);
  return JSON.parse(run.stdout);
};

interface SiteRow {
  source: string;
  reports: number;
  freshBefore: Scores;
  freshAfter: Scores;
  sharingAfter: Scores;
}
interface RunResult {
  sites: SiteRow[];
  promoted: boolean;
  version: string;
  losses: string[];
  kinds: Array<{ kind: string; inService: number | null; candidate: number | null; tolerance: number }>;
}

// The replay's sites are minutes old; a deployment keeps a sharing site's reviews for its model
// once the site is SIFT_NETWORK_MIN_AGE old (7 days by default). The stack inherits this.
process.env["SIFT_NETWORK_MIN_AGE"] = "0";
// That would also let the network count the replay's minutes-old workspaces, among them the
// background load's, which sends the stand-ins' texts and contacts on a clock: a fresh site's
// verdicts then hung on how many workspaces had sent a text by the time it was classified (two
// runs differed by 0.013 of recall). The network is measured by pnpm bench:network; here it is off.
process.env["SIFT_NETWORK"] = "off";

const oneRun = async (run: number): Promise<RunResult> => {
  const stack = await startSift();
  const redis = createRedis(stack.redisUrl, "replay-learning");
  await redisReady(redis);
  const keystore = new Keystore({ redis, clock: systemClock });
  const newSite = async () => {
    const key = await createKey(keystore, { kind: "classify", plan: "paid", allowance: 100_000_000 });
    await keystore.updateWorkspace(key.workspaceId, { rateLimit: 1e6, burst: 1e6 });
    return key;
  };
  const client = siteClient(createPoster(stack.baseUrl, { maxSockets: 64 }));
  const others = await Promise.all(Array.from({ length: 10 }, () => newSite()));
  const stop = await backgroundLoad(
    client,
    others,
    standIns.flatMap((s) => s.items.filter((_, i) => i % 7 === 0)),
    Number(values.background),
  );
  try {
    log(`\n== run ${run}: stack ${stack.baseUrl}; load ${load()}`);
    const played = [];
    for (const { source, items } of standIns) {
      const half = Math.floor(items.length / 2);
      const sharingItems = items.slice(0, half);
      const freshItems = items.slice(half);
      const cut = Math.floor(sharingItems.length / 4);
      const [sharing, fresh] = [await newSite(), await newSite()];
      sift(stack.redisUrl, ["workspace", "set", "--workspace", sharing.workspaceId, "--share-reports", "on"]);
      const freshBefore = await pool(freshItems, (r) => client.classify(fresh.secretKey, r.content));
      const reported = sharingItems.slice(0, cut);
      for (const r of reported) await client.report(sharing.secretKey, r.content, r.label);
      await settled(client, sharing, reported.at(-1)!);
      played.push({
        source,
        sharing,
        fresh,
        freshItems,
        rest: sharingItems.slice(cut),
        reported,
        freshBefore,
      });
    }
    const trained = sift(stack.redisUrl, ["model", "train"]) as {
      version: string;
      reviews: number;
      sites: number;
      comparison: { wins: boolean; losses: string[]; kinds?: RunResult["kinds"] };
    };
    const { version, comparison } = trained;
    log(
      `trained ${version} from ${trained.reviews} reviews of ${trained.sites} sites: ${comparison.wins ? "won" : `lost (${comparison.losses.join("; ")})`}; load ${load()}`,
    );
    const promote = comparison.wins || values.force;
    if (promote)
      sift(stack.redisUrl, [
        "model",
        "promote",
        "--version",
        version,
        ...(comparison.wins ? [] : ["--force"]),
      ]);
    // The workers read the version in service once a second; give them two, and a batch. Then
    // one call per site, so each worker holds the shared layer and the sites' states as they
    // stand now (a held state is checked at most once a second), before anything is measured.
    await new Promise((r) => setTimeout(r, 3_000));
    for (const p of played)
      for (const key of [p.fresh, p.sharing]) await client.classify(key.secretKey, p.freshItems[0]!.content);
    await new Promise((r) => setTimeout(r, 1_500));
    const sites: SiteRow[] = [];
    for (const p of played) {
      const freshAfter = await pool(p.freshItems, (r) => client.classify(p.fresh.secretKey, r.content));
      const sharingAfter = await pool(p.rest, (r) => client.classify(p.sharing.secretKey, r.content));
      sites.push({
        source: p.source,
        reports: p.reported.length,
        freshBefore: scoresOf(
          p.freshBefore,
          p.freshItems.map((r) => r.label),
        ),
        freshAfter: scoresOf(
          freshAfter,
          p.freshItems.map((r) => r.label),
        ),
        sharingAfter: scoresOf(
          sharingAfter,
          p.rest.map((r) => r.label),
        ),
      });
    }
    return {
      sites,
      promoted: promote,
      version,
      losses: comparison.losses,
      kinds: comparison.kinds ?? [],
    };
  } finally {
    const background = await stop();
    log(`background: ${background.sent} calls, ${background.failed} failed; load ${load()}`);
    redis.disconnect();
    await stack.stop();
  }
};

process.on("unhandledRejection", (err) => {
  console.error(err);
  process.exit(1);
});
const runs: RunResult[] = [];
for (let run = 1; run <= Number(values.runs); run++) runs.push(await oneRun(run));

const last = runs.at(-1)!;
const mean = (xs: number[]) =>
  xs.filter(Number.isFinite).reduce((a, b) => a + b, 0) / xs.filter(Number.isFinite).length;
log(`\ncandidate ${last.version}: ${last.promoted ? "promoted" : "not promoted"}`);
for (const k of last.kinds)
  log(
    `  ${k.kind}: ROC AUC ${f3(k.inService ?? NaN)} → ${f3(k.candidate ?? NaN)} (noise ${f3(k.tolerance)})`,
  );
log(
  "\n| stand-in | fresh site AUC shipped → after | fresh R@0.8 / P@0.8 after | sharing site after its reviews: AUC, R@0.8, P@0.8 |",
);
log("| --- | --- | --- | --- |");
for (const s of last.sites)
  log(
    `| ${s.source} | ${f3(s.freshBefore.auc)} → ${f3(s.freshAfter.auc)} | ${f3(s.freshAfter.recall)} / ${f3(s.freshAfter.precision)} | ${f3(s.sharingAfter.auc)}, ${f3(s.sharingAfter.recall)}, ${f3(s.sharingAfter.precision)} |`,
  );
const figures = (r: RunResult): Array<[string, number]> =>
  r.sites.flatMap((s) => [
    [`${s.source} fresh AUC`, s.freshAfter.auc],
    [`${s.source} fresh R@0.8`, s.freshAfter.recall],
    [`${s.source} sharing AUC`, s.sharingAfter.auc],
    [`${s.source} sharing R@0.8`, s.sharingAfter.recall],
    [`${s.source} sharing P@0.8`, s.sharingAfter.precision],
  ]);
const spreads = figures(runs[0]!).map(([name], i) => {
  const all = runs.map((r) => figures(r)[i]![1]);
  return { name, spread: Math.max(...all) - Math.min(...all) };
});
const widest = spreads.filter((x) => Number.isFinite(x.spread)).sort((a, b) => b.spread - a.spread)[0];
const spread = runs.length > 1 && widest ? widest.spread : Number.NaN;
const goals: [string, string, boolean][] = [
  [
    "a fresh site after a promotion: every stand-in's AUC ≥ the shipped model's − 0.005",
    last.sites.map((s) => `${s.source} ${f3(s.freshAfter.auc - s.freshBefore.auc)}`).join(", "),
    last.sites.every((s) => !(s.freshAfter.auc < s.freshBefore.auc - 0.005)),
  ],
  [
    "sharing sites after their reviews and the promotion: mean R@0.8 / P@0.8",
    `${f3(mean(last.sites.map((s) => s.sharingAfter.recall)))} / ${f3(mean(last.sites.map((s) => s.sharingAfter.precision)))}`,
    mean(last.sites.map((s) => s.sharingAfter.recall)) >= 0.75 &&
      mean(last.sites.map((s) => s.sharingAfter.precision)) >= 0.9,
  ],
  [
    "two runs within 0.01 on every figure",
    runs.length > 1 ? `widest ${f3(spread)} (${widest?.name})` : "one run",
    spread <= 0.01,
  ],
];
log("\n| goal | figure | met |\n| --- | --- | --- |");
for (const [goal, figure, met] of goals) log(`| ${goal} | ${figure} | ${met ? "yes" : "**no**"} |`);
if (runs.length > 1)
  log(`\nspread per figure: ${spreads.map((x) => `${x.name} ${f3(x.spread)}`).join("; ")}`);
log(`\nload at the end ${load()}`);
process.exit(0);
