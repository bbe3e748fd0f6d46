// pnpm bench:network [--data ../shared/data] [--sites 20,200,2000] [--fit] [--seed 37]
//
// The network's multi-site replay (issue 37, docs/network.md). Real messages from ../shared/data,
// synthetic spread: sites with their own honest traffic, campaigns sent to a heavy-tailed number
// of sites with the variations campaigns use, and the false-positive traps. Each submission is
// scored by the shipped model in process (the worker's onnxruntime scorer) and counted by the
// real @sift/network store (its Lua script) on a Redis of its own, in time order; the verdict is
// the model's score with the network's term, exactly as classify adds it. Prints the goals, the
// Redis memory, and the poisoning check (one tenant flooding, five colluding new tenants).
// --fit searches the term's weights on this replay and prints the best (DEFAULT_WEIGHTS holds them).
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { prepareContent } from "@sift/content";
import type { NormalizedField } from "@sift/contracts";
import { featurize } from "@sift/model";
import { loadOnnxScorer } from "@sift/model-worker/scorer";
import {
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
} from "@sift/network";
import { startServer } from "@sift/testkit";
import { buildWorld, loadPools, rng, TRAPS, WEEK, type Kind } from "./world.ts";
import { evaluate, fit, type Scored } from "./goals.ts";

const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    sites: { type: "string", default: "20,200,2000" },
    fit: { type: "boolean", default: false },
    seed: { type: "string", default: "37" },
  },
});
const MIN_SITES = 3;
const SYNTHETIC = "(synthetic spread)";
const pct = (x: number) => `${(100 * x).toFixed(2)} %`;

const pools = loadPools(resolve(values.data!));
const scorer = await loadOnnxScorer({ intraOpThreads: 1 });
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
  const content = await scoreAll(fields);
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
      scored.push({ kind: event.kind, content: content[i]!, spreads, prior });
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
      ["message", `${text} poison-${seed}-${c}`],
    ]);
    const keys = hashKeys(secret, submissionKeys(fields));
    const [content] = await scoreAll([fields]);
    const victims = Array.from({ length: 50 }, (_, v) => `victim-${c}-${v}`);
    const label = async (who: string) => {
      const spreads = await store.spread({ keys, workspace: workspaceTag(secret, who), give: false, now });
      return verdict(content!, spreads) >= 0.8;
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
  withNetwork(content, networkSignal(spreads, MIN_SITES).term);

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
const perUnique = await uniqueMemory();
const allScored: Scored[] = [];
for (const sites of values.sites!.split(",").map(Number)) {
  const started = Date.now();
  const { world, scored, memory, poisoning, keys } = await run(sites, Number(values.seed));
  allScored.push(...scored);
  const g = evaluate(scored, DEFAULT_WEIGHTS, MIN_SITES);
  const perDay = world.events.length / 7;
  console.log(
    `\n## ${sites} sites: ${world.events.length} submissions over 7 days ${SYNTHETIC}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  console.log(`| goal | target | network | content only |`);
  console.log(`| --- | ---: | ---: | ---: |`);
  console.log(
    `| campaign copies after the campaign reached 3 others, caught at 0.8 ${SYNTHETIC} (n = ${g.after3.n}) | ≥ 90 % | ${pct(g.after3.net)} | ${pct(g.after3.content)} |`,
  );
  console.log(
    `| every campaign copy caught at 0.8 ${SYNTHETIC} (n = ${g.all.n}) | – | ${pct(g.all.net)} | ${pct(g.all.content)} |`,
  );
  console.log(
    `| site-specific ham flagged at 0.8 ${SYNTHETIC} (n = ${g.ham.n}) | – | ${pct(g.ham.net)} | ${pct(g.ham.content)} |`,
  );
  for (const trap of TRAPS) {
    const t = g.traps[`trap:${trap}` as Kind];
    if (t)
      console.log(
        `| trap "${trap}" flagged at 0.8 ${SYNTHETIC} (n = ${t.n}) | ≤ 0.5 % | ${pct(t.net)} | ${pct(t.content)} |`,
      );
  }
  console.log(
    `| one tenant flooding, five colluding new tenants: other workspaces' labels changed ${SYNTHETIC} | 0 | ${poisoning.changed} of ${poisoning.checked} | – |`,
  );
  console.log(
    `| Redis memory per million classified submissions per day (7 days kept) ${SYNTHETIC} | measured | ${(((memory / perDay) * 1e6) / 1e9).toFixed(2)} GB (${keys} keys, ${(memory / world.events.length).toFixed(0)} B a submission) | – |`,
  );
}
console.log(
  `\nRedis memory if no two submissions shared a key (the bound): ${perUnique.toFixed(0)} B a submission, ${((perUnique * 7 * 1e6) / 1e9).toFixed(2)} GB per million a day kept 7 days`,
);
if (values.fit) {
  const best = fit(allScored, MIN_SITES);
  console.log(
    `\n--fit on every size above: ${JSON.stringify(best.weights)}: copies after 3 caught ${pct(best.after3)}, worst trap ${pct(best.worstTrap)}`,
  );
}
