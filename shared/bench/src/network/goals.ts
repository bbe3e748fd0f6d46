import {
  DEFAULT_GATES,
  spreadFeatures,
  type NetworkGates,
  termOf,
  withNetwork,
  type KeySpread,
  type NetworkWeights,
  type SpreadFeatures,
} from "@sift/network";
import type { Kind } from "./world.ts";

export interface Scored {
  kind: Kind;
  /** The content model's score the goals are judged on: out of sample (content.ts). */
  content: number;
  /** The shipped model's score, trained on the message's family too: reported beside, never instead. */
  inSample?: number;
  spreads: KeySpread[];
  /** Other sites the same campaign (or trap) reached in the week before this copy. */
  prior: number;
  /** The message, for `--show` (which rows the network tipped). */
  message?: string;
  family?: string;
  /** spreadFeatures of `spreads` under `gates`, kept so a weight search does not recount them. */
  features?: { gates: NetworkGates; of: SpreadFeatures };
}

const featuresOf = (r: Scored, minSites: number, gates: NetworkGates): SpreadFeatures => {
  if (r.features?.gates !== gates) r.features = { gates, of: spreadFeatures(r.spreads, minSites, gates) };
  return r.features.of;
};

interface Rate {
  n: number;
  net: number;
  content: number;
}

const rate = (
  rows: readonly Scored[],
  weights: NetworkWeights,
  minSites: number,
  gates: NetworkGates,
): Rate => {
  let net = 0;
  let content = 0;
  for (const r of rows) {
    if (r.content >= 0.8) content++;
    if (withNetwork(r.content, termOf(featuresOf(r, minSites, gates), weights).term) >= 0.8) net++;
  }
  const n = Math.max(1, rows.length);
  return { n: rows.length, net: net / n, content: content / n };
};

/** The goals on one replay, for one set of weights. */
export const evaluate = (
  scored: readonly Scored[],
  weights: NetworkWeights,
  minSites: number,
  gates: NetworkGates = DEFAULT_GATES,
) => {
  const campaigns = scored.filter((s) => s.kind === "campaign");
  const traps: Partial<Record<Kind, Rate>> = {};
  for (const kind of new Set(scored.map((s) => s.kind)))
    if (kind.startsWith("trap:"))
      traps[kind] = rate(
        scored.filter((s) => s.kind === kind),
        weights,
        minSites,
        gates,
      );
  return {
    after3: rate(
      campaigns.filter((s) => s.prior >= 3),
      weights,
      minSites,
      gates,
    ),
    all: rate(campaigns, weights, minSites, gates),
    ham: rate(
      scored.filter((s) => s.kind === "ham"),
      weights,
      minSites,
      gates,
    ),
    traps,
  };
};

/** The goals' limits: what the network may add to a trap's and to site ham's flagged share. */
export const TRAP_LIMIT = 0.01;
export const TRAP_ADDED = 0.003;
export const HAM_ADDED = 0.001;

/**
 * The weights with the highest catch of copies after three others (the mean over the replay's
 * sizes), such that in every size the network adds at most 0.3 points to any false-positive trap
 * and leaves it at 1 % or less where the content alone was, and adds at most 0.1 points to
 * site-specific ham; a grid. Fitted on out-of-sample content scores (content.ts): on the shipped
 * model's in-sample scores it found no room (issue 47). Each row is first cut to what the term
 * reads (its spreads per kind past the sender's, the burst, the model's log-odds), so a weight
 * set costs a few operations a row.
 */
export const fit = (
  runs: ReadonlyArray<{ sites: number; scored: readonly Scored[] }>,
  minSites: number,
  gates: NetworkGates = DEFAULT_GATES,
  limits = { trapAdded: TRAP_ADDED, hamAdded: HAM_ADDED },
) => {
  const LOGIT_08 = Math.log(4);
  interface Group {
    size: number;
    contentRate: number;
    rows: number[][];
    kind: "after3" | "ham" | "trap";
  }
  const groups: Group[] = [];
  for (const { scored } of runs) {
    const byName = new Map<string, Scored[]>();
    for (const r of scored) {
      const name = r.kind === "campaign" ? (r.prior >= 3 ? "after3" : "") : r.kind;
      if (name) byName.set(name, [...(byName.get(name) ?? []), r]);
    }
    for (const [name, rows] of byName) {
      const flagged = rows.filter((r) => r.content >= 0.8).length;
      const kept: number[][] = [];
      for (const r of rows) {
        if (r.content >= 0.8) continue; // flagged whatever the term (it is never negative)
        const f = featuresOf(r, minSites, gates);
        if (f.best.size === 0) continue; // the term is 0
        const q = Math.min(1 - 1e-6, Math.max(1e-6, r.content));
        kept.push([
          Math.log2(1 + (f.best.get("text")?.sites ?? 0)),
          Math.log2(1 + (f.best.get("short")?.sites ?? 0)),
          Math.log2(1 + (f.best.get("link")?.sites ?? 0)),
          Math.log2(1 + (f.best.get("contact")?.sites ?? 0)),
          f.burst.get("text") ?? 0,
          f.burst.get("short") ?? 0,
          f.burst.get("link") ?? 0,
          f.burst.get("contact") ?? 0,
          LOGIT_08 - Math.log(q / (1 - q)),
        ]);
      }
      groups.push({
        size: rows.length,
        contentRate: flagged / rows.length,
        rows: kept,
        kind: name === "after3" ? "after3" : name === "ham" ? "ham" : "trap",
      });
    }
  }
  const steps = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3];
  let best = { weights: null as NetworkWeights | null, after3: -1, worstTrap: 1 };
  for (const text of steps)
    for (const short of steps)
      for (const link of steps)
        for (const contact of steps.slice(0, 7))
          for (const burst of [0, 0.5, 1])
            for (const cap of [0.5, 1, 1.5, 2, 3, 4, 5]) {
              let after3 = 0;
              let worstTrap = 0;
              let ok = true;
              for (const g of groups) {
                let flagged = 0;
                for (const [t, sh, l, c, bt, bs, bl, bc, need] of g.rows) {
                  // The burst of the weighted kinds only (termOf).
                  const b = Math.max(text ? bt! : 0, short ? bs! : 0, link ? bl! : 0, contact ? bc! : 0);
                  if (Math.min(cap, text * t! + short * sh! + link * l! + contact * c! + burst * b) >= need!)
                    flagged++;
                }
                const added = flagged / g.size;
                const rate = g.contentRate + added;
                if (g.kind === "after3") after3 += rate / runs.length;
                else if (g.kind === "ham") ok &&= added <= limits.hamAdded;
                else {
                  worstTrap = Math.max(worstTrap, rate);
                  ok &&=
                    added <= limits.trapAdded &&
                    (added === 0 || rate <= Math.max(TRAP_LIMIT, limits.trapAdded));
                }
                if (!ok) break;
              }
              // Ties go to fewer flagged traps.
              if (ok && (after3 > best.after3 || (after3 === best.after3 && worstTrap < best.worstTrap)))
                best = { weights: { text, short, link, contact, burst, cap }, after3, worstTrap };
            }
  return best;
};
