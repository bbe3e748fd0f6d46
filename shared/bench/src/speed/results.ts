// What `pnpm bench` prints and writes: the table, the goals of issue 19 met or not, the JSON
// the CI smoke test reads, and docs/benchmarks.md with its chart.
import { execSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { ROOT } from "@sift/testkit";
import { chartSvg } from "./chart.ts";
import { MODEL_WORK, type HopFigure } from "./hops.ts";
import { median, type Series } from "./load.ts";
import type { StageBreakdown } from "./stages.ts";

export const MODES = {
  full: {
    seconds: 4,
    latencySeconds: 3,
    rounds: 3,
    warmupSeconds: 1,
    connections: 16,
    workerConcurrency: 32,
    reports: 10_000,
    floorCount: 3_000,
    stageCount: 1_000,
  },
  quick: {
    seconds: 2,
    latencySeconds: 2,
    rounds: 3,
    warmupSeconds: 1,
    connections: 16,
    workerConcurrency: 32,
    reports: 2_000,
    floorCount: 2_000,
    stageCount: 500,
  },
  smoke: {
    seconds: 1,
    latencySeconds: 1,
    rounds: 1,
    warmupSeconds: 0,
    connections: 8,
    workerConcurrency: 16,
    reports: 50,
    floorCount: 200,
    stageCount: 50,
  },
} as const;

export interface GroupResult {
  id: string;
  title: string;
  connections: number;
  series: Series[];
}

export interface Results {
  mode: keyof typeof MODES;
  startedAt: string;
  loadBefore: number[];
  loadAfter: number[];
  built: boolean;
  solutionsSpent: number;
  reports: { count: number; applied: number; seconds: number } | undefined;
  groups: GroupResult[];
  hops: HopFigure[];
  /** Submissions per NATS request and per model run, over the classify runs at full load. */
  batching: HopFigure[];
  /** One lone classify by stage, from a traced stack's spans (stages.ts). */
  stages?: StageBreakdown | undefined;
  memory: Record<
    string,
    {
      rssMb: number;
      peakMb: number;
      idleMb: number;
      /** V8's heap after the run (the service's /metrics): used, and allocated from the OS. */
      heapUsedMb?: number | undefined;
      heapTotalMb?: number | undefined;
    }
  >;
}

/** Marks the end of what the script writes: everything after it in docs/benchmarks.md is kept. */
export const KEPT_MARKER = "<!-- Everything below this line is written by hand and kept by `pnpm bench`. -->";

const summary = (s: Series) => {
  const rps = s.runs.map((r) => r.rps);
  return {
    id: s.target.id,
    label: s.target.label,
    min: Math.min(...rps),
    median: median(rps),
    max: Math.max(...rps),
    mean: median(s.runs.map((r) => r.mean)),
    p99: median(s.runs.map((r) => r.p99)),
    count: s.runs.reduce((a, r) => a + r.count, 0),
    errors: s.runs.reduce((a, r) => a + r.errors, 0),
    refused: s.runs.reduce((a, r) => a + r.refused, 0),
    statuses: s.runs.reduce<Record<string, number>>((acc, r) => {
      for (const [k, v] of Object.entries(r.statuses)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
  };
};
type Summary = ReturnType<typeof summary>;

interface Goal {
  goal: string;
  figure: string;
  met: boolean | undefined;
}

/** The bare chain at one connection: what issue 40's latency multiples are of. */
const BARE_1 = "classify-bare-1";

/**
 * The design card's floor for one classify at one connection: the bare chain (client → no-op
 * gateway → no-op service over loopback HTTP) plus one Redis script and one NATS request, each
 * timed alone (the breakdown's floor rows). Undefined unless the latency scenario ran.
 */
const cardFloor = (r: Results, find: (id: string) => Summary | undefined) => {
  const bare = find(BARE_1);
  const floor = (start: string) => r.hops.find((h) => h.hop.startsWith(start))?.meanMs;
  const script = floor("floor: the gateway's key script");
  const nats = floor("floor: NATS request/reply");
  if (!bare || script === undefined || nats === undefined) return undefined;
  const bareMs = 1000 / bare.median;
  return { bareMs, script, nats, ms: bareMs + script + nats };
};

const goals = (r: Results, find: (id: string) => Summary | undefined): Goal[] => {
  const ratio = (goal: string, a: string, b: string, min: number): Goal => {
    const x = find(a);
    const y = find(b);
    if (!x || !y) return { goal, figure: "not run", met: undefined };
    const q = x.median / y.median;
    return { goal, figure: `${fmt(x.median)} / ${fmt(y.median)} req/s = ${q.toFixed(2)}×`, met: q >= min };
  };
  const atMost = (goal: string, id: string, pick: "mean" | "p99", max: number): Goal => {
    const x = find(id);
    if (!x) return { goal, figure: "not run", met: undefined };
    return { goal, figure: `${pick} ${x[pick].toFixed(2)} ms`, met: x[pick] <= max };
  };
  /**
   * At one connection the requests run strictly one after another, so 1000 / req/s is the mean
   * round trip as the client sees it. autocannon keeps whole milliseconds, which reads a
   * sub-millisecond answer as 0 and pulls its mean down; its figure is shown beside.
   */
  const sequentialMean = (goal: string, id: string, max: number): Goal => {
    const x = find(id);
    if (!x) return { goal, figure: "not run", met: undefined };
    const mean = 1000 / x.median;
    return {
      goal,
      figure: `mean ${mean.toFixed(2)} ms (1000 / ${fmt(x.median)} req/s; autocannon's whole-ms mean ${x.mean.toFixed(2)})`,
      met: mean <= max,
    };
  };
  const memory = Object.entries(r.memory);
  /** At one connection: a path's mean (1000 / req/s) as a multiple of the bare chain's. */
  const latencyRatio = (goal: string, id: string, max: number): Goal => {
    const x = find(id);
    const bare = find(BARE_1);
    if (!x || !bare) return { goal, figure: "not run", met: undefined };
    const q = bare.median / x.median;
    return {
      goal,
      figure: `${(1000 / x.median).toFixed(2)} / ${(1000 / bare.median).toFixed(2)} ms = ${q.toFixed(2)}×`,
      met: q <= max,
    };
  };
  const worker = r.memory["worker"];
  const card = cardFloor(r, find);
  const lone = find("classify-gateway-1");
  const floorGoal =
    "a lone classify ≤ 1.3 × the card's floor (bare chain + one Redis script + one NATS request), one connection (issue 58)";
  return [
    card && lone
      ? {
          goal: floorGoal,
          figure: `${(1000 / lone.median).toFixed(2)} / ${card.ms.toFixed(2)} ms = ${(1000 / lone.median / card.ms).toFixed(2)}×`,
          met: 1000 / lone.median / card.ms <= 1.3,
        }
      : { goal: floorGoal, figure: "not run", met: undefined },
    latencyRatio(
      "classify, real key, one connection ≤ 2.5 × the bare chain (issue 40)",
      "classify-gateway-1",
      2.5,
    ),
    latencyRatio("verify, one connection ≤ 1.3 × the bare chain (issue 40)", "verify-gateway-1", 1.3),
    ratio(
      "classify throughput, 16 connections ≥ 0.40 × the bare chain (issue 40)",
      "classify-gateway",
      "classify-bare",
      0.4,
    ),
    worker
      ? {
          goal: "model worker peak RSS ≤ 200 MB (issue 40)",
          figure: `${worker.peakMb.toFixed(0)} MB`,
          met: worker.peakMb <= 200,
        }
      : { goal: "model worker peak RSS ≤ 200 MB (issue 40)", figure: "not run", met: undefined },
    ratio("verify through the gateway ≥ 0.8 × the bare chain", "verify-gateway", "verify-bare", 0.8),
    ratio("classify through the gateway ≥ 0.5 × the bare chain", "classify-gateway", "classify-bare", 0.5),
    ratio("gateway in front of classify ≥ 0.7 × classify alone", "classify-gateway", "classify-direct", 0.7),
    ratio("gateway in front of verify ≥ 0.7 × verify alone", "verify-gateway", "verify-direct", 0.7),
    sequentialMean("classify at 1 connection, mean ≤ 1.2 ms", "classify-gateway-1", 1.2),
    sequentialMean("verify at 1 connection, mean ≤ 0.8 ms", "verify-gateway-1", 0.8),
    atMost("classify at half of peak, p99 ≤ 10 ms", "classify-gateway-half", "p99", 10),
    atMost("verify at half of peak, p99 ≤ 10 ms", "verify-gateway-half", "p99", 10),
    ratio("model worker batched ≥ 3 × batch 1 over NATS", "worker-batched", "worker-batch-1", 3),
    ratio("model worker ≥ 0.5 × raw session.run", "worker-batched", "worker-raw", 0.5),
    memory.length
      ? {
          goal: "each service's RSS under 150 MB at peak load",
          figure: memory.map(([name, m]) => `${name} ${m.peakMb.toFixed(0)} MB`).join(", "),
          met: memory.every(([, m]) => m.peakMb < 150),
        }
      : { goal: "each service's RSS under 150 MB at peak load", figure: "not run", met: undefined },
    ratio(
      `classify with ${r.reports?.count.toLocaleString("en-US") ?? "10,000"} reports within 10 % of none (issue 17)`,
      "classify-reports",
      "classify-no-reports",
      0.9,
    ),
    ratio(
      "classify with the verdict log on (default, redacted) within 5 % of off (issues 28, 40)",
      "classify-log-redacted",
      "classify-log-off",
      0.95,
    ),
  ];
};

/**
 * Each goal's gap split between the hops, from the twins of the same run: the gateway's share
 * (the service alone against through the gateway), Sift's plumbing without the model (the chain
 * with a worker that answers at once against the bare chain), the model worker's share (the
 * real chain against that one), and the levers against the processes without them.
 */
const gaps = (r: Results, find: (id: string) => Summary | undefined, derived: HopFigure[]): string[] => {
  const q = (a: string, b: string) => {
    const x = find(a)?.median;
    const y = find(b)?.median;
    return x && y ? x / y : NaN;
  };
  const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "(not run)");
  const out = [
    `verify: through the gateway Sift keeps ${x(q("verify-gateway", "verify-direct"))} of the verify service alone, while the ` +
      `bare chain (a no-op service behind a no-op proxy) keeps ${x(q("verify-bare", "verify-direct"))} of it: the second process ` +
      `and its proxy hop cost most of the gap, the gateway's own work (body, key lookup, signing) the rest.`,
    `classify: Sift's chain with a worker that answers at once runs at ${x(q("classify-noop-worker", "classify-bare"))} of the bare chain ` +
      `(the gateway's key script and signing, the classify service's parsing, content rules and usage script, one NATS round trip); ` +
      `the real worker takes it to ${x(q("classify-gateway", "classify-noop-worker"))} of that; ` +
      `the gateway keeps ${x(q("classify-gateway", "classify-direct"))} of the classify service alone.`,
    `levers (each against the process as deployed, in the same table): verify without the gateway's key cache runs at ${x(q("lever-verify-no-key-cache", "lever-verify-gateway"))} of verify with it; ` +
      `the gateway run by tsx instead of the build at ${x(q("lever-verify-tsx", "lever-verify-gateway"))} (verify) and ` +
      `${x(q("lever-classify-tsx", "lever-classify-gateway"))} (classify); the classify service with one NATS request per submission at ` +
      `${x(q("lever-classify-no-coalesce", "lever-classify-direct"))} of the one that coalesces.`,
    `model worker: batched runs at ${x(q("worker-batched", "worker-batch-1"))} of batch 1 and at ${x(q("worker-batched", "worker-raw"))} ` +
      `of featurising and running the model in one process with no transport.`,
  ];
  if (derived.length) {
    out.push(
      `one classify at 1 connection (ms): ${derived.map((d) => `${d.hop.replace(/^= /, "")} ${d.meanMs.toFixed(3)}`).join("; ")}; ` +
        `the model run itself ${r.hops[4]?.meanMs.toFixed(3) ?? "-"}.`,
    );
  }
  const floorsOf = r.hops.filter((h) => h.hop.startsWith("floor"));
  if (floorsOf.length)
    out.push(
      `floors, one at a time (ms): ${floorsOf.map((f) => `${f.hop.replace(/^floor: /, "")} ${f.meanMs.toFixed(3)}`).join("; ")}.`,
    );
  return out;
};

/** Each hop's own share: a hop's time less the hop inside it, and the client's view less the gateway's. */
const derivedHops = (hops: HopFigure[]): HopFigure[] => {
  const [client, gateway, service, nats, model] = hops.map((h) => h.meanMs);
  if ([client, gateway, service, nats, model].some((v) => v === undefined)) return [];
  const share = (hop: string, a: number, b: number): HopFigure => ({ hop, meanMs: a - b, count: 0 });
  return [
    share(
      "= client → gateway → client outside the gateway's handler (loopback, HTTP parsing)",
      client!,
      gateway!,
    ),
    share("= the gateway's own work (body, key script, signing, proxy hop to classify)", gateway!, service!),
    share("= the classify service's own work (parse, content rules, usage script)", service!, nats!),
    share("= NATS both ways and the worker outside the model run (parse, featurise, reply)", nats!, model!),
  ];
};

const fmt = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "-");
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "-");
const mark = (met: boolean | undefined) => (met === undefined ? "not run" : met ? "met" : "**not met**");

const versions = () => {
  const pkg = (name: string) => {
    try {
      return (
        JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
          version: string;
        }
      ).version;
    } catch {
      return "?";
    }
  };
  const cmd = (c: string) => {
    try {
      return execSync(c, { encoding: "utf8" }).trim().split("\n")[0]!;
    } catch {
      return "?";
    }
  };
  const workerPkg = join(ROOT, "services/model-worker/node_modules/onnxruntime-node/package.json");
  return {
    node: process.version,
    os: `${process.platform} ${release()}`,
    cpu: `${cpus()[0]?.model ?? "?"} × ${cpus().length}`,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    autocannon: pkg("autocannon"),
    onnxruntime: existsSync(workerPkg)
      ? (JSON.parse(readFileSync(workerPkg, "utf8")) as { version: string }).version
      : "?",
    redis: cmd("redis-server --version"),
    nats: cmd("nats-server --version"),
    commit: cmd(`git -C ${ROOT} rev-parse --short HEAD`),
  };
};

export const writeResults = async (
  r: Results,
  options: { out: string | undefined; json: string | undefined; log: (line: string) => void },
) => {
  const all = r.groups.flatMap((g) => g.series.map(summary));
  const find = (id: string) => all.find((s) => s.id === id);
  const goalRows = goals(r, find);
  const lines: string[] = [];
  for (const g of r.groups) {
    lines.push(`\n### ${g.title}\n`);
    lines.push("| target | req/s min / median / max | mean ms | p99 ms | answers |");
    lines.push("| --- | ---: | ---: | ---: | --- |");
    for (const s of g.series.map(summary)) {
      const statuses = Object.entries(s.statuses)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ");
      const problems = s.errors || s.refused ? `; ${s.errors} errors, ${s.refused} refused` : "";
      lines.push(
        `| ${s.label} | ${fmt(s.min)} / **${fmt(s.median)}** / ${fmt(s.max)} | ${ms(s.mean)} | ${ms(s.p99)} | ${statuses || `${s.count} replies`}${problems} |`,
      );
    }
  }
  const goalTable = [
    "| goal | figure | |",
    "| --- | --- | --- |",
    ...goalRows.map((g) => `| ${g.goal} | ${g.figure} | ${mark(g.met)} |`),
  ];
  const derived = derivedHops(r.hops);
  const hopTable = r.hops.length
    ? [
        "| hop | mean ms | observations |",
        "| --- | ---: | ---: |",
        ...[...r.hops, ...derived].map((h) => `| ${h.hop} | ${h.meanMs.toFixed(3)} | ${h.count || ""} |`),
      ]
    : ["(not run)"];
  const batchingTable = r.batching.length
    ? [
        "| at full load | mean | observations |",
        "| --- | ---: | ---: |",
        ...r.batching.map((h) => `| ${h.hop} | ${h.meanMs.toFixed(2)} | ${h.count} |`),
      ]
    : ["(not run)"];
  const latencyGroup = r.groups.find((g) => g.id === "latency-1");
  const bare1 = find(BARE_1);
  const multiplesTable =
    latencyGroup && bare1
      ? [
          "| path, one connection | mean ms (1000 / req/s) | × the bare chain |",
          "| --- | ---: | ---: |",
          ...latencyGroup.series
            .map(summary)
            .map(
              (s) =>
                `| ${s.label} | ${(1000 / s.median).toFixed(3)} | ${(bare1.median / s.median).toFixed(2)} |`,
            ),
        ]
      : ["(not run)"];
  const stageTable = r.stages
    ? [
        "| stage | at ms (median since sent) | ms since the stage before (or the one named), mean / median | what lies between |",
        "| --- | ---: | ---: | --- |",
        ...r.stages.stages.map(
          (st, i) =>
            `| ${st.stage} | ${st.atMs.toFixed(3)} | ${i === 0 ? "" : `${st.stepMeanMs.toFixed(3)} / ${st.stepMedianMs.toFixed(3)}`} | ${i === 0 ? "" : st.note} |`,
        ),
      ]
    : ["(not run)"];
  const card = cardFloor(r, find);
  const modelWork = r.hops.find((h) => h.hop === MODEL_WORK)?.meanMs;
  const partTable = r.stages
    ? [
        "| part | mean ms | median ms | what it holds |",
        "| --- | ---: | ---: | --- |",
        ...r.stages.parts.map(
          (p) => `| ${p.part} | ${p.meanMs.toFixed(3)} | ${p.medianMs.toFixed(3)} | ${p.note} |`,
        ),
        `| **the whole call (traced)** | **${r.stages.wholeMeanMs.toFixed(3)}** | | the parts' sum, call by call |`,
        card
          ? `| the card's floor | ${card.ms.toFixed(3)} | | bare chain ${card.bareMs.toFixed(3)} + one Redis script ${card.script.toFixed(3)} + one NATS request ${card.nats.toFixed(3)} (untraced) |`
          : "| the card's floor | not run | | needs the latency scenario |",
        ...(card && modelWork !== undefined
          ? [
              `| the goal's room for all of Sift's own work | ${(card.ms * 0.3).toFixed(3)} | | 1.3 × the floor less the floor: the gateway's, classify's and the worker's work together |`,
              `| featurise + one model run alone | ${modelWork.toFixed(3)} | | ${MODEL_WORK} (untraced): ${((modelWork / (card.ms * 0.3)) * 100).toFixed(0)} % of that room |`,
            ]
          : []),
      ]
    : ["(not run)"];
  const memoryTable = [
    "| service | RSS started, idle MB | RSS after the run MB | peak RSS MB | V8 heap used / total MB after the run |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...Object.entries(r.memory).map(
      ([n, m]) =>
        `| ${n} | ${m.idleMb.toFixed(0)} | ${m.rssMb.toFixed(0)} | ${m.peakMb.toFixed(0)} | ` +
        `${m.heapUsedMb?.toFixed(0) ?? "?"} / ${m.heapTotalMb?.toFixed(0) ?? "?"} |`,
    ),
  ];

  options.log(lines.join("\n"));
  options.log(`\n### goals\n\n${goalTable.join("\n")}`);
  options.log(`\n### where one classify's time goes (1 connection)\n\n${hopTable.join("\n")}`);
  options.log(`\n### one connection, × the bare chain\n\n${multiplesTable.join("\n")}`);
  options.log(`\n### one lone classify by stage (traced stack, wall clock)\n\n${stageTable.join("\n")}`);
  options.log(`\n### one lone classify by part, beside the card's floor\n\n${partTable.join("\n")}`);
  options.log(`\n### coalescing and batching (classify, full load)\n\n${batchingTable.join("\n")}`);
  options.log(`\n### memory\n\n${memoryTable.join("\n")}`);

  if (options.json)
    writeFileSync(options.json, JSON.stringify({ ...r, summaries: all, goals: goalRows }, null, 2));
  if (!options.out) return;

  const out = join(ROOT, options.out);
  const svgName = basename(out).replace(/\.md$/, ".svg");
  const chartRows = r.groups
    .filter((g) => !g.id.startsWith("latency"))
    .flatMap((g) =>
      g.series.map(summary).map((s) => ({
        label: s.label,
        rps: s.median,
        p99: s.p99,
        twin: !/gateway|batched|reports/.test(s.id),
      })),
    );
  writeFileSync(
    join(dirname(out), svgName),
    chartSvg(
      chartRows,
      `pnpm bench (${r.mode}), ${r.startedAt.slice(0, 10)}: median of ${MODES[r.mode].rounds} alternating runs`,
    ),
  );
  const v = versions();
  const kept =
    existsSync(out) && readFileSync(out, "utf8").includes(KEPT_MARKER)
      ? readFileSync(out, "utf8").split(KEPT_MARKER)[1]!
      : "\n";
  const mode = MODES[r.mode];
  const doc = `# Benchmarks

Written by \`pnpm bench\` (shared/bench/src/speed/main.ts) on ${r.startedAt}; rerun it to
regenerate this file and [${svgName}](${svgName}). Everything above the closing note comes from
that run.

## How it was measured

- \`pnpm bench${r.mode === "full" ? "" : ` --${r.mode}`}\`: ${mode.rounds} rounds of ${mode.seconds} s per target (latency runs
  ${mode.latencySeconds} s), after a ${mode.warmupSeconds} s warm-up each; the targets of a table run
  in turn, the order rotating each round, so the machine's load falls on all of them alike.
  Figures are medians of the rounds; throughput shows min / median / max.
- HTTP load: autocannon in the bench's process, ${mode.connections} connections unless the table says
  otherwise, a fresh body per request (four real submissions in turn; for verify a distinct
  real solution per request, solved before the run). The model worker's load: ${mode.workerConcurrency}
  requests in flight over NATS, one submission each, as the classify service sends them.
- Every service is its own process, ${r.built ? "run from the compiled build (`node dist/main.js`)" : "run from its TypeScript sources with tsx"}, on loopback with
  its own Redis and NATS. The **bare chain** is the plumbing the design card prescribes, doing
  no work: an express service (reads the JSON body, answers a fixed reply) behind an express +
  http-proxy-middleware gateway with a keep-alive agent, each its own process. The
  **instant worker** answers every inference request at once, behind a real gateway and
  classify service on a NATS of its own.
- The reports scenario sends ${r.reports?.count.toLocaleString("en-US") ?? "no"} reports through \`POST /feedback\`; the classify service's learner
  applied them${r.reports ? ` (${r.reports.applied} in ${r.reports.seconds.toFixed(0)} s)` : ""} before the runs.
- Machine: ${v.cpu}, ${v.memory}, ${v.os}; load average ${r.loadBefore.map((x) => x.toFixed(2)).join(" / ")} (1 / 5 / 15 min) before the
  run and ${r.loadAfter.map((x) => x.toFixed(2)).join(" / ")} after: the machine is shared, so only ratios within one run count.
- Versions: Node ${v.node}, autocannon ${v.autocannon}, onnxruntime-node ${v.onnxruntime}, ${v.redis}, ${v.nats}; commit ${v.commit}.

## Goals (issue 40 first, then issue 19's, issue 17's and issue 28's)

${goalTable.join("\n")}

Every path at one connection, as a multiple of the bare chain's latency in the same rounds:

${multiplesTable.join("\n")}

### Where each gap comes from (computed from this run)

${gaps(r, find, derived)
  .map((g) => `- ${g}`)
  .join("\n")}

## Figures

![throughput and p99 per target](${svgName})
${lines.join("\n")}

## Where one classify's time goes

${mode.floorCount.toLocaleString("en-US")} classify calls through the gateway one after another on one connection, read against
the services' own histograms (the change of \`_sum\` / \`_count\` over those calls); the rows
starting with = are the differences, each hop's own share; the floors are single operations
timed from the bench's process:

${hopTable.join("\n")}

### One lone classify by stage, wall clock

${r.stages ? `${r.stages.complete.toLocaleString("en-US")} of ${r.stages.calls.toLocaleString("en-US")} classify calls` : "Classify calls"} one after another on one connection through a second
stack like the first but with tracing on (OTLP to a collector in the bench's process, its own
NATS), read from each call's spans: when the call reached each stage, on one clock (every span
starts and ends at performance.timeOrigin + performance.now(), the same time line in every
process of the machine). The first and last rows are the bench's own clock around the call.
Tracing costs the traced stack some microseconds per span; the stack measured above has it off.

${stageTable.join("\n")}

The same calls by part (issue 58): each call's time cut at its spans' edges, so the parts of a
call sum to its whole; the card's floor beside them is the untraced stack's, from the rows above.

${partTable.join("\n")}

How much one NATS request and one model run carried during the classify runs at
${mode.connections} connections:

${batchingTable.join("\n")}

## Memory

Resident memory of each Sift service after every scenario; peak is the kernel's high-water
mark (VmHWM), so it covers the heaviest load of the run.

${memoryTable.join("\n")}

${KEPT_MARKER}${kept}`;
  writeFileSync(out, doc);
  options.log(`\nwrote ${options.out} and ${svgName}`);
};
