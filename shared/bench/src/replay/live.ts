/**
 * The live replay (DESIGN.md: live replays): sites living through a running stack over HTTP.
 * Each stand-in source is one kind of traffic; its rows, shuffled with a fixed seed, are split
 * in two: a reporting site that reports its first quarter through POST /feedback, one at a time
 * as a person reviews, and then classifies the rest with its key; and a fresh site of the same
 * kind that reviews nothing. Meanwhile other workspaces call classify (and now and then report)
 * at a steady rate, as the rest of a deployment does. What is printed is what the stack answered:
 * nothing here scores in process.
 */
import { prepareContent } from "@sift/content";
import { createPoster, type Poster } from "@sift/testkit";
import {
  formContent,
  loadSource,
  seededRandom,
  shuffled,
  wholeMessages,
  type SourceName,
} from "@sift/training";
import { rocAuc } from "@sift/learning";
import { SPAM_STANDARD } from "@sift/contracts";

export interface LiveItem {
  content: unknown;
  label: 0 | 1;
}

export interface StandIn {
  /** The data source standing in for the site. */
  source: string;
  /** The kind of traffic it stands for (comment box, SMS, chat, e-mail, form). */
  kind: string;
  items: LiveItem[];
}

export interface SiteKey {
  workspaceId: string;
  secretKey: string;
}

export interface Scores {
  auc: number;
  recall: number;
  precision: number;
  flagged: number;
}

export interface SiteFigures {
  source: string;
  kind: string;
  reports: { spam: number; clean: number };
  classified: number;
  before: Scores;
  after: Scores;
  /** The second half of the stand-in, as a fresh site scored by the stack (no reviews). */
  fresh: Scores;
  /** Near-copies of reported spam scored spam, of reported clean flagged (and flagged only on this site). */
  nearSpam: { n: number; caught: number };
  nearClean: { n: number; flagged: number; flaggedByIt: number };
  /** The scores a bystander workspace got before and after this site's reports: equal. */
  isolated: boolean;
  /** What the site's explained verdicts say its reports taught (the weights each part earned). */
  earned: string;
}

export interface LiveOptions {
  baseUrl: string;
  newSite: () => Promise<SiteKey>;
  standIns: StandIn[];
  /** Background classify calls per second from other workspaces (DESIGN default 100). */
  background: number;
  /** Requests in flight per site while classifying its rows. */
  width?: number;
  log?: (line: string) => void;
}

const THRESHOLD = 0.8;

/** The fixed shuffle every live replay lives its stand-ins' traffic in. */
export const STAND_IN_SEED = 20_261_206;

/**
 * A stand-in's traffic: a source's rows in a form's fields (`formContent`), or with
 * `whole:<source>` joined into whole submissions; those classify accepts, shuffled with the fixed
 * seed (a site's traffic is not sorted by label), at most `maxRows`.
 */
export const standInItems = (
  dataDir: string,
  name: string,
  authors: readonly string[],
  maxRows: number,
): LiveItem[] => {
  const [whole, source] = name.startsWith("whole:") ? [true, name.slice(6)] : [false, name];
  const rows = loadSource(dataDir, source as SourceName);
  const items = whole
    ? wholeMessages(rows, authors, () => 0).map((m) => ({ content: m.content as unknown, label: m.label }))
    : rows.map((row, i) => ({ content: formContent(row, i, authors).content, label: row.label }));
  return shuffled(
    items.filter((r) => prepareContent(r.content).ok),
    seededRandom(STAND_IN_SEED),
  ).slice(0, maxRows);
};

export const scoresOf = (scores: readonly number[], labels: readonly (0 | 1)[]): Scores => {
  const z = scores.map((score, i) => ({ z: score, label: labels[i]! }));
  const flagged = z.filter((s) => s.z >= THRESHOLD);
  const tp = flagged.filter((s) => s.label === 1).length;
  const positives = z.filter((s) => s.label === 1).length;
  return {
    auc: rocAuc(z) ?? Number.NaN,
    recall: positives ? tp / positives : Number.NaN,
    precision: flagged.length ? tp / flagged.length : Number.NaN,
    flagged: flagged.length,
  };
};

/** Runs `task` over `items` with `width` in flight, keeping the order of results. */
export const pool = async <T, R>(
  items: readonly T[],
  task: (item: T, i: number) => Promise<R>,
  width = 4,
) => {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await task(items[i]!, i);
      }
    }),
  );
  return out;
};

/** The calls a site's server makes, through one keep-alive agent. */
export const siteClient = (poster: Poster) => {
  const json = (key: string) => ({ "content-type": "application/json", authorization: `Bearer ${key}` });
  const classifyReply = async (key: string, content: unknown, query = "") => {
    // A 503 is the worker's answer late on a loaded machine; a site would retry it.
    for (let attempt = 0; ; attempt++) {
      const answer = await poster.post(
        `/classify${query}`,
        JSON.stringify({ content, model: SPAM_STANDARD }),
        json(key),
      );
      if (answer.status === 200)
        return JSON.parse(answer.text) as { score: number; reasons?: { signal: string }[] };
      if (answer.status !== 503 || attempt >= 4)
        throw new Error(`classify answered ${answer.status}: ${answer.text.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
    }
  };
  return {
    classify: async (key: string, content: unknown) => (await classifyReply(key, content)).score,
    explain: (key: string, content: unknown) => classifyReply(key, content, "?explain=1"),
    report: async (key: string, content: unknown, label: 0 | 1) => {
      const answer = await poster.post(
        "/feedback",
        JSON.stringify({ content, label: label ? "spam" : "clean" }),
        json(key),
      );
      if (answer.status !== 200)
        throw new Error(`feedback answered ${answer.status}: ${answer.text.slice(0, 200)}`);
    },
  };
};
export type SiteClient = ReturnType<typeof siteClient>;

/**
 * Other workspaces' traffic at `rps` classify calls a second (and one report in 50), open loop:
 * sent on a clock whatever the answers' pace, as independent sites would. Returns its stop,
 * which answers how many calls it sent and how many failed.
 */
export const backgroundLoad = async (
  client: SiteClient,
  sites: SiteKey[],
  items: readonly LiveItem[],
  rps: number,
): Promise<() => Promise<{ sent: number; failed: number }>> => {
  let sent = 0;
  let failed = 0;
  const inFlight = new Set<Promise<unknown>>();
  if (rps <= 0 || sites.length === 0 || items.length === 0) return async () => ({ sent, failed });
  const tickMs = 20;
  let owed = 0;
  const timer = setInterval(() => {
    owed += (rps * tickMs) / 1000;
    for (; owed >= 1; owed--) {
      const k = sent++;
      const site = sites[k % sites.length]!;
      const item = items[(k * 7919) % items.length]!;
      const call =
        k % 50 === 49
          ? client.report(site.secretKey, item.content, item.label)
          : client.classify(site.secretKey, item.content);
      const tracked = call.catch(() => void failed++).finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    }
  }, tickMs);
  return async () => {
    clearInterval(timer);
    await Promise.all(inFlight);
    return { sent, failed };
  };
};

/**
 * A near-copy of a submission as a campaign resends it: `variant` picks what changes (digits,
 * case, spacing, the greeting, the sender's name and signature, tracking in links).
 */
export const nearCopy = (content: unknown, variant: number, n: number): unknown => {
  const names = ["Jordan Blake", "Maria Costa", "Ahmed Yilmaz", "Li Wei", "Olga Petrova", "Sam Okafor"];
  const name = names[n % names.length]!;
  const text = (t: string): string => {
    switch (variant % 6) {
      case 0:
        return t.replace(/\d/g, (d) => String((Number(d) + 3 + (n % 5)) % 10));
      case 1:
        return n % 2 ? t.toUpperCase() : t.toLowerCase();
      case 2:
        return t.replace(/ /g, n % 2 ? "  " : " \n").replace(/([.!?])\s/g, "$1   ");
      case 3: {
        const greetings = ["Hello!", "Hi there,", "Good day,", "Dear friend,", "Hey,"];
        const stripped = t.replace(
          /^\s*(hi|hello|hey|dear|good (morning|day|afternoon))\b[^\n,.!]*[,.!]?\s*/i,
          "",
        );
        return `${greetings[n % greetings.length]} ${stripped}`;
      }
      case 4:
        return `${t}\n\nBest regards,\n${name}`;
      default:
        return /https?:\/\//.test(t)
          ? t.replace(
              /(https?:\/\/[^\s)"']+)/g,
              (url) => `${url}${url.includes("?") ? "&" : "?"}utm_source=mail${n}&ref=${n}x`,
            )
          : `${t} ${n % 2 ? "Reply soon." : "Thanks."}`;
    }
  };
  if (typeof content === "string") return text(content);
  const form = { ...(content as Record<string, string>) };
  for (const [field, value] of Object.entries(form)) {
    if (/name|author/i.test(field)) form[field] = variant % 6 === 4 ? name : value;
    else if (/mail/i.test(field))
      form[field] = variant % 6 === 4 ? `${name.split(" ")[0]!.toLowerCase()}${n}@mail.example` : value;
    else form[field] = text(value);
  }
  return form;
};

/** One stand-in lived by a reporting site and a fresh one. */
export const liveSite = async (
  client: SiteClient,
  newSite: () => Promise<SiteKey>,
  standIn: StandIn,
  width: number,
): Promise<SiteFigures> => {
  const half = Math.floor(standIn.items.length / 2);
  const lived = standIn.items.slice(0, half);
  const freshItems = standIn.items.slice(half);
  const cut = Math.floor(lived.length / 4);
  const reported = lived.slice(0, cut);
  const rest = lived.slice(cut);
  const [site, bystander, fresh] = [await newSite(), await newSite(), await newSite()];

  const before = await pool(rest, (r) => client.classify(bystander.secretKey, r.content), width);
  // A person reviews one at a time: each report waits for the previous one's answer. The last
  // carries a marker, so its effect can be seen: the site is played once its state holds it.
  const last = { ...reported.at(-1)!, content: withTail(reported.at(-1)!.content, marker(1_000_000)) };
  for (const r of [...reported.slice(0, -1), last]) await client.report(site.secretKey, r.content, r.label);
  await settled(client, site, last);
  const after = await pool(rest, (r) => client.classify(site.secretKey, r.content), width);
  const again = await pool(rest, (r) => client.classify(bystander.secretKey, r.content), width);
  const freshScores = await pool(freshItems, (r) => client.classify(fresh.secretKey, r.content), width);

  // Near-copies: six kinds of change for every reported item, scored on the site and on the bystander.
  const copies = reported.flatMap((r, n) =>
    Array.from({ length: 6 }, (_, variant) => ({ label: r.label, content: nearCopy(r.content, variant, n) })),
  );
  const onSite = await pool(copies, (c) => client.classify(site.secretKey, c.content), width);
  // What the site's parts earned on its newest reviews, as its explained verdicts name it.
  const taught = await pool(rest.slice(0, 20), (r) => client.explain(site.secretKey, r.content), width);
  const earned =
    taught
      .flatMap((t) => (t.reasons ?? []) as { signal: string; label?: string }[])
      .find((r) => r.signal === "learned_site")?.label ?? "no learned_site reason";
  const onBystander = await pool(copies, (c) => client.classify(bystander.secretKey, c.content), width);
  const spamCopies = copies.map((c, i) => ({ c, i })).filter(({ c }) => c.label === 1);
  const cleanCopies = copies.map((c, i) => ({ c, i })).filter(({ c }) => c.label === 0);
  const labels = rest.map((r) => r.label);
  return {
    source: standIn.source,
    kind: standIn.kind,
    reports: {
      spam: reported.filter((r) => r.label === 1).length,
      clean: reported.filter((r) => r.label === 0).length,
    },
    classified: rest.length,
    before: scoresOf(before, labels),
    after: scoresOf(after, labels),
    fresh: scoresOf(
      freshScores,
      freshItems.map((r) => r.label),
    ),
    nearSpam: { n: spamCopies.length, caught: spamCopies.filter(({ i }) => onSite[i]! >= THRESHOLD).length },
    nearClean: {
      n: cleanCopies.length,
      flagged: cleanCopies.filter(({ i }) => onSite[i]! >= THRESHOLD).length,
      flaggedByIt: cleanCopies.filter(({ i }) => onSite[i]! >= THRESHOLD && onBystander[i]! < THRESHOLD)
        .length,
    },
    // Equal up to float noise: the worker's batches differ between the two passes.
    isolated: again.every((s, i) => Math.abs(s - before[i]!) < 1e-6),
    earned,
  };
};

/**
 * Waits until the site's verdicts reflect a report of `item`: its content answered as a
 * near-duplicate of it at 100 % (only the same text is, once the state that holds the report is
 * loaded). Answers how long that took from the report's 200.
 */
export const settled = async (client: SiteClient, site: SiteKey, item: LiveItem, limitMs = 30_000) => {
  const started = performance.now();
  const want = `near_duplicate_${item.label ? "spam" : "clean"}`;
  for (;;) {
    const reply = await client.explain(site.secretKey, item.content);
    const reasons = (reply.reasons ?? []) as { signal: string; label?: string }[];
    if (reasons.some((r) => r.signal === want && r.label?.includes("(100% similar)")))
      return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`a report did not show within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Letters that survive the fingerprint's folding (digits become 0): a text no other report holds. */
const marker = (k: number): string => {
  const syllables = ["ka", "lo", "mi", "su", "te", "ro", "va", "ne", "pi", "du", "zo", "be"];
  let word = "";
  for (let n = k + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
  return ` (ref ${word} ${word.split("").reverse().join("")})`;
};

/** `content` with `tail` after its message (the last field for a form). */
const withTail = (content: unknown, tail: string): unknown => {
  if (typeof content === "string") return content + tail;
  const form = { ...(content as Record<string, string>) };
  const last = Object.keys(form).at(-1)!;
  form[last] = form[last] + tail;
  return form;
};

/** Every stand-in, one after another, beside the background load. */
export const runLiveReplay = async (
  options: LiveOptions,
): Promise<{ sites: SiteFigures[]; background: { sent: number; failed: number } }> => {
  const poster = createPoster(options.baseUrl, { maxSockets: 64 });
  const client = siteClient(poster);
  const others = await Promise.all(Array.from({ length: 10 }, () => options.newSite()));
  const pooled = options.standIns.flatMap((s) => s.items.filter((_, i) => i % 7 === 0));
  const stop = await backgroundLoad(client, others, pooled, options.background);
  const sites: SiteFigures[] = [];
  try {
    for (const standIn of options.standIns) {
      sites.push(await liveSite(client, options.newSite, standIn, options.width ?? 4));
      options.log?.(formatSite(sites.at(-1)!));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { sites, background: await stop() };
};

export const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "-");
const pct = (a: number, n: number) => (n ? `${((100 * a) / n).toFixed(1)} %` : "-");

export const formatSite = (s: SiteFigures) =>
  `${s.source} (${s.kind}): ${s.reports.spam + s.reports.clean} reports (${s.reports.spam} spam / ${s.reports.clean} clean), ` +
  `${s.classified} classified; AUC ${f3(s.before.auc)} → ${f3(s.after.auc)}, R@0.8 ${f3(s.before.recall)} → ${f3(s.after.recall)}, ` +
  `P@0.8 ${f3(s.before.precision)} → ${f3(s.after.precision)} (flagged ${s.before.flagged} → ${s.after.flagged}); near-copies of spam caught ${pct(s.nearSpam.caught, s.nearSpam.n)}, ` +
  `of clean flagged ${s.nearClean.flagged}/${s.nearClean.n} (${s.nearClean.flaggedByIt} by the report); fresh site AUC ${f3(s.fresh.auc)}; ` +
  `isolation ${s.isolated ? "kept" : "BROKEN"}; ${s.earned}`;

/**
 * The report lag at a rate: `rate` reports a second spread over 20 workspaces, beside `load`
 * (16 connections of classify, say) that the caller runs meanwhile; every tenth report is
 * followed until its workspace's verdicts reflect it. Answers the lags in ms.
 */
export const reportLag = async (
  client: SiteClient,
  newSite: () => Promise<SiteKey>,
  items: readonly LiveItem[],
  options: { rate: number; seconds: number },
): Promise<{ lags: number[]; sent: number }> => {
  const sites = await Promise.all(Array.from({ length: 20 }, () => newSite()));
  const lags: number[] = [];
  const probes: Promise<void>[] = [];
  const total = Math.round(options.rate * options.seconds);
  const started = performance.now();
  for (let k = 0; k < total; k++) {
    const due = started + (1000 * k) / options.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const site = sites[k % sites.length]!;
    const drawn = items[(k * 104_729) % items.length]!;
    // A probe carries a marker of its own, so only its own report can answer it at 100 %.
    const item = k % 10 === 0 ? { ...drawn, content: withTail(drawn.content, marker(k)) } : drawn;
    const sent = client.report(site.secretKey, item.content, item.label);
    probes.push(
      k % 10 === 0 ? sent.then(async () => void lags.push(await settled(client, site, item))) : sent,
    );
  }
  await Promise.all(probes);
  return { lags, sent: total };
};

export const quantile = (xs: readonly number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : Number.NaN;
};
