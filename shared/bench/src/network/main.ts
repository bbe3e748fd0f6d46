// pnpm bench:network [--data ../shared/data] [--sites 20,200,2000] [--fit] [--seed 37]
//                    [--weights json] [--gates json | json list] [--show n]
//
// The network's multi-site replay (issues 37 and 47, docs/network.md). Real messages from
// ../shared/data, synthetic spread: sites with their own honest traffic, campaigns sent to a
// heavy-tailed number of sites with the variations campaigns use (senders, digits, tails, spun
// words, reordered sentences, shared operator domains), and the false-positive traps. Each
// submission is scored twice: out of sample (the model trained without its family, content.ts),
// which the goals and the fit read, and in sample (the shipped model, the worker's onnxruntime
// scorer), printed beside. It is counted by the real @sift/network store (its Lua script) on a
// Redis of its own, in time order; the verdict is the score with the network's term, exactly as
// classify adds it. Prints the goals, the Redis memory, and the poisoning check (one tenant
// flooding, five colluding new tenants). --weights and --gates replace the shipped ones; --fit
// searches the weights for each set of gates given and prints the best under the goal's limits
// and looser ones (DEFAULT_WEIGHTS holds the goal's); --show prints honest rows the term tipped.
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { prepareContent } from "@sift/content";
import type { NormalizedField } from "@sift/contracts";
import { featurize } from "@sift/model";
import { loadOnnxScorer } from "@sift/model-worker/scorer";
import {
  DEFAULT_GATES,
  DEFAULT_WEIGHTS,
  hashKeys,
  networkHasher,
  networkSignal,
  participation,
  RedisNetworkStore,
  submissionKeys,
  withNetwork,
  workspaceTag,
  type KeySpread,
  type NetworkGates,
  type NetworkWeights,
} from "@sift/network";
import { startServer } from "@sift/testkit";
import { heldOutScorer } from "./content.ts";
import { buildWorld, loadPools, rng, TRAPS, WEEK, type Kind } from "./world.ts";
import { evaluate, fit, HAM_ADDED, TRAP_ADDED, type Scored } from "./goals.ts";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    sites: { type: "string", default: "20,200,2000" },
    fit: { type: "boolean", default: false },
    seed: { type: "string", default: "37" },
    weights: { type: "string" },
    show: { type: "string" },
    gates: { type: "string" },
  },
});
const MIN_SITES = 3;
const SYNTHETIC = "(synthetic spread)";
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;

const pools = loadPools(resolve(values.data!));
const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
const started = performance.now();
/** Out of sample: each message scored by the model trained without its family (content.ts). */
const heldOut = heldOutScorer(resolve(values.data!), (l) =>
  console.log(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${l}`),
);
const scores = new Map<string, number>();

/** The fields classify would see: the content as a caller sends it, through @sift/content. */
const prepare = (fields: NormalizedField[]): NormalizedField[] => {
  const prepared = prepareContent(Object.fromEntries(fields));
  return prepared.ok ? [...prepared.fields] : fields;
};

const scoreAll = async (all: NormalizedField[][]): Promise<number[]> => {
  const missing = [...new Set(all.map((f) => JSON.stringify(f)).filter((k) => !scores.has(k)))];
  for (let at = 0; at < missing.length; at += 128) {
    const chunk = missing.slice(at, at + 128);
    const got = await scorer.score(chunk.map((k) => featurize(JSON.parse(k) as NormalizedField[])));
    chunk.forEach((k, i) => scores.set(k, got[i]!));
  }
  return all.map((f) => scores.get(JSON.stringify(f))!);
};

const usedMemory = async (redis: Redis) => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))![1]);

const run = async (sites: number, seed: number) => {
  const world = buildWorld(pools, sites, seed);
  const fields = world.events.map((e) => prepare(e.fields));
  const inSample = await scoreAll(fields);
  // A message written for the replay (family "-") is out of sample for every model.
  const content = world.events.map((e, i) =>
    e.family === "-" ? inSample[i]! : heldOut(e.family, fields[i]!),
  );
  const server = await startServer("redis");
  const redis = new Redis(server.url);
  try {
    const store = new RedisNetworkStore({ redis });
    const secret = randomBytes(32);
    const tags = Array.from({ length: sites }, (_, s) => workspaceTag(secret, `site-${s}`));
    const hash = networkHasher(secret).keys;
    const before = await usedMemory(redis);
    const reached = new Map<number, Map<number, number>>();
    const scored: Scored[] = [];
    for (const [i, event] of world.events.entries()) {
      const keys = hash(submissionKeys(fields[i]!));
      const spreads = await store.spread({ keys, workspace: tags[event.site]!, give: true, now: event.t });
      // Ground truth: how many other sites this campaign reached within the week before.
      const seen = reached.get(event.group) ?? new Map<number, number>();
      let prior = 0;
      for (const [site, t] of seen) if (site !== event.site && event.t - t < WEEK) prior++;
      seen.set(event.site, event.t);
      reached.set(event.group, seen);
      scored.push({
        kind: event.kind,
        content: content[i]!,
        inSample: inSample[i]!,
        spreads,
        prior,
        ...(values.show ? { message: fields[i]!.map(([, v]) => v).join(" | "), family: event.family } : {}),
      });
    }
    const memory = (await usedMemory(redis)) - before;
    const poisoning = await poison(store, secret, seed);
    return { world, scored, memory, poisoning, keys: await redis.dbsize() };
  } finally {
    redis.disconnect();
    await server.stop();
  }
};

/**
 * One tenant sends each of ten fresh campaigns 1,000 times, five tenants created a day ago send
 * each three times; 50 other sites then get the campaign. Labels at those sites before and after,
 * with SIFT_NETWORK_MIN_AGE at its default of 7 days: changed labels should be 0.
 */
const poison = async (store: RedisNetworkStore, secret: Buffer, seed: number) => {
  const r = rng(seed + 1);
  const now = 2 * WEEK;
  const settings = { on: true, minAgeMs: WEEK, minSites: MIN_SITES };
  const old = { on: true, since: 0 };
  const young = { on: true, since: now - 24 * 3_600_000 };
  let changed = 0;
  let checked = 0;
  for (let c = 0; c < 10; c++) {
    const text = pools.spam[Math.floor(r() * pools.spam.length)]!;
    const fields = prepare([
      ["name", "Sam"],
      ["message", `${text.text} poison-${seed}-${c}`],
    ]);
    const keys = hashKeys(secret, submissionKeys(fields));
    const content = heldOut(text.family, fields);
    const victims = Array.from({ length: 50 }, (_, v) => `victim-${c}-${v}`);
    const label = async (who: string) => {
      const spreads = await store.spread({ keys, workspace: workspaceTag(secret, who), give: false, now });
      return verdict(content, spreads) >= 0.8;
    };
    const beforeLabels = await Promise.all(victims.map(label));
    const flooder = participation(settings, old, now);
    for (let i = 0; i < 1_000; i++)
      await store.spread({ keys, workspace: workspaceTag(secret, "flooder"), give: flooder.give, now });
    for (let k = 0; k < 5; k++) {
      const colluder = participation(settings, young, now);
      for (let i = 0; i < 3; i++)
        await store.spread({
          keys,
          workspace: workspaceTag(secret, `colluder-${k}`),
          give: colluder.give,
          now,
        });
    }
    const afterLabels = await Promise.all(victims.map(label));
    changed += afterLabels.filter((l, i) => l !== beforeLabels[i]).length;
    checked += victims.length;
  }
  return { changed, checked };
};

const verdict = (content: number, spreads: readonly KeySpread[]) =>
  withNetwork(content, networkSignal(spreads, MIN_SITES, weights, gates).term);

/** Memory of submissions that share nothing (every key new): the bound per classified submission. */
const uniqueMemory = async (): Promise<number> => {
  const server = await startServer("redis");
  const redis = new Redis(server.url);
  try {
    const store = new RedisNetworkStore({ redis });
    const secret = randomBytes(32);
    const before = await usedMemory(redis);
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const keys = hashKeys(
        secret,
        submissionKeys([
          [
            "message",
            `unique message ${i} ${"lorem ipsum dolor sit amet ".repeat(3)} https://site-${i}.example.com call 0151 496 ${String(i).padStart(4, "0")}`,
          ],
        ]),
      );
      await store.spread({ keys, workspace: workspaceTag(secret, `w${i % 50}`), give: true, now: i });
    }
    return ((await usedMemory(redis)) - before) / n;
  } finally {
    redis.disconnect();
    await server.stop();
  }
};

console.log(
  `pnpm bench:network: ${pools.spam.length} spam and ${Object.values(pools.ham).flat().length} ham rows from ${values.data}; every spread is synthetic`,
);
console.log(
  `content scores: out of sample (each message by the model trained without its family, as pnpm eval's leave-one-source-out); in sample (the shipped model, trained on every family) beside them`,
);
const perUnique = await uniqueMemory();
const runs: Array<{ sites: number; scored: Scored[] }> = [];
/** The same rows with the shipped model's in-sample scores as their content. */
const inSampleOf = (scored: readonly Scored[]): Scored[] =>
  scored.map((s) => ({ ...s, content: s.inSample ?? s.content }));
/** `--show n`: up to n honest rows per kind that the network tipped over 0.8, with their spreads. */
const showTipped = (scored: readonly Scored[], n: number) => {
  const shown = new Map<string, number>();
  for (const r of scored) {
    if (r.kind === "campaign" || r.content >= 0.8) continue;
    const { term } = networkSignal(r.spreads, MIN_SITES, weights, gates);
    if (withNetwork(r.content, term) < 0.8 || (shown.get(r.kind) ?? 0) >= n) continue;
    shown.set(r.kind, (shown.get(r.kind) ?? 0) + 1);
    const spreads = r.spreads.map((s) => `${s.kind}:${s.hour}/${s.day}/${s.week}`).join(" ");
    console.log(
      `  tipped ${r.kind} (${r.family}) content ${r.content.toFixed(3)} term ${term.toFixed(2)} [${spreads}] ${r.message?.slice(0, 160)}`,
    );
  }
};
const weights = values.weights ? (JSON.parse(values.weights) as NetworkWeights) : DEFAULT_WEIGHTS;
/** `--gates` is one set, or a list of sets that `--fit` compares (the tables use the first). */
const gateSets = values.gates
  ? ([JSON.parse(values.gates)].flat() as NetworkGates[]).map((g) => ({ ...DEFAULT_GATES, ...g }))
  : [DEFAULT_GATES];
const gates = gateSets[0]!;
console.log(`gates: ${JSON.stringify(gates)}`);
console.log(`weights: ${JSON.stringify(weights)}`);
for (const sites of values.sites!.split(",").map(Number)) {
  const runStarted = Date.now();
  const { world, scored, memory, poisoning, keys } = await run(sites, Number(values.seed));
  runs.push({ sites, scored });
  const g = evaluate(scored, weights, MIN_SITES, gates);
  const i = evaluate(inSampleOf(scored), weights, MIN_SITES, gates);
  const perDay = world.events.length / 7;
  const cells = (out: { net: number; content: number }, ins: { net: number; content: number }) =>
    `${pct(out.net)} | ${pct(out.content)} | ${pct(ins.net)} | ${pct(ins.content)}`;
  console.log(
    `\n## ${sites} sites: ${world.events.length} submissions over 7 days ${SYNTHETIC}, ${((Date.now() - runStarted) / 1000).toFixed(0)} s`,
  );
  console.log(
    `| at 0.8 ${SYNTHETIC} | target | network, out of sample | content alone, out of sample | network, in sample | content alone, in sample |`,
  );
  console.log(`| --- | ---: | ---: | ---: | ---: | ---: |`);
  console.log(
    `| campaign copies after the campaign reached 3 other sites, caught (n = ${g.after3.n}) | ≥ 90 %, ≥ +25 points | ${cells(g.after3, i.after3)} |`,
  );
  console.log(`| every campaign copy, caught (n = ${g.all.n}) | – | ${cells(g.all, i.all)} |`);
  console.log(`| site-specific ham, flagged (n = ${g.ham.n}) | – | ${cells(g.ham, i.ham)} |`);
  if (values.show) showTipped(scored, Number(values.show));
  for (const trap of TRAPS) {
    const t = g.traps[`trap:${trap}` as Kind];
    const ti = i.traps[`trap:${trap}` as Kind];
    if (t && ti)
      console.log(
        `| trap "${trap}", flagged (n = ${t.n}) | ≤ 1 %, network ≤ +0.3 points | ${cells(t, ti)} |`,
      );
  }
  console.log(
    `| one tenant flooding, five colluding new tenants: other workspaces' labels changed | 0 | ${poisoning.changed} of ${poisoning.checked} | – | – | – |`,
  );
  console.log(
    `| Redis memory per million classified submissions per day (7 days kept) | measured | ${(((memory / perDay) * 1e6) / 1e9).toFixed(2)} GB (${keys} keys, ${(memory / world.events.length).toFixed(0)} B a submission) | – | – | – |`,
  );
}
console.log(
  `\nRedis memory if no two submissions shared a key (the bound): ${perUnique.toFixed(0)} B a submission, ${((perUnique * 7 * 1e6) / 1e9).toFixed(2)} GB per million a day kept 7 days`,
);
if (values.fit) {
  // The goals' limits, then looser ones: what catching more would cost the traps.
  const limits = [
    { trapAdded: TRAP_ADDED, hamAdded: HAM_ADDED },
    { trapAdded: 0.01, hamAdded: 0.002 },
    { trapAdded: 0.05, hamAdded: 0.005 },
  ];
  for (const g of gateSets)
    for (const limit of limits) {
      const best = fit(runs, MIN_SITES, g, limit);
      console.log(
        `--fit, out-of-sample content, gates ${JSON.stringify(g)}, network adds ≤ ${pct(limit.trapAdded)} to a trap and ≤ ${pct(limit.hamAdded)} to site ham: ${JSON.stringify(best.weights)}: copies after 3 caught ${pct(best.after3)} (sizes' mean), worst trap ${pct(best.worstTrap)}`,
      );
    }
}
