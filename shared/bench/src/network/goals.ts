import {
  spreadFeatures,
  termOf,
  withNetwork,
  type KeySpread,
  type NetworkWeights,
  type SpreadFeatures,
} from "@sift/network";
import type { Kind } from "./world.ts";

export interface Scored {
  kind: Kind;
  content: number;
  spreads: KeySpread[];
  /** Other sites the same campaign (or trap) reached in the week before this copy. */
  prior: number;
  /** spreadFeatures of `spreads`, kept so a weight search does not recount them. */
  features?: SpreadFeatures;
}

interface Rate {
  n: number;
  net: number;
  content: number;
}

const rate = (rows: readonly Scored[], weights: NetworkWeights, minSites: number): Rate => {
  let net = 0;
  let content = 0;
  for (const r of rows) {
    if (r.content >= 0.8) content++;
    r.features ??= spreadFeatures(r.spreads, minSites);
    if (withNetwork(r.content, termOf(r.features, weights).term) >= 0.8) net++;
  }
  const n = Math.max(1, rows.length);
  return { n: rows.length, net: net / n, content: content / n };
};

/** The goals on one replay, for one set of weights. */
export const evaluate = (scored: readonly Scored[], weights: NetworkWeights, minSites: number) => {
  const campaigns = scored.filter((s) => s.kind === "campaign");
  const traps: Partial<Record<Kind, Rate>> = {};
  for (const kind of new Set(scored.map((s) => s.kind)))
    if (kind.startsWith("trap:"))
      traps[kind] = rate(
        scored.filter((s) => s.kind === kind),
        weights,
        minSites,
      );
  return {
    after3: rate(
      campaigns.filter((s) => s.prior >= 3),
      weights,
      minSites,
    ),
    all: rate(campaigns, weights, minSites),
    ham: rate(
      scored.filter((s) => s.kind === "ham"),
      weights,
      minSites,
    ),
    traps,
  };
};

/**
 * The weights with the highest catch of copies after three others such that the network adds at
 * most 0.5 % of flagged messages to any trap, and 0.1 % to site-specific ham, over what the
 * content alone flags there; a grid. (Asking each trap to stay under 0.5 % whatever the model
 * does left only zero weights once issue 36's calibration had the model alone flag 3-4.6 % of
 * two traps at 2,000 sites: the network was then judged on the model's false positives.) Each
 * row is first cut to what the term reads (its spreads per kind past the sender's, the burst,
 * the model's log-odds), so a weight set costs a few operations a row.
 */
export const fit = (scored: readonly Scored[], minSites: number) => {
  const LOGIT_08 = Math.log(4);
  const groups = new Map<string, { rows: Float64Array[]; limit: number; after3: boolean }>();
  const add = (name: string, row: Float64Array, limit: number, after3 = false) => {
    const g = groups.get(name) ?? { rows: [], limit, after3 };
    g.rows.push(row);
    groups.set(name, g);
  };
  const sizes = new Map<string, number>();
  for (const r of scored) {
    const name = r.kind === "campaign" ? (r.prior >= 3 ? "after3" : "") : r.kind;
    if (!name) continue;
    sizes.set(name, (sizes.get(name) ?? 0) + 1);
    if (r.content >= 0.8) continue; // flagged whatever the term (it is never negative)
    const f = spreadFeatures(r.spreads, minSites);
    if (f.best.size === 0) continue; // the term is 0
    const q = Math.min(1 - 1e-6, Math.max(1e-6, r.content));
    const need = LOGIT_08 - Math.log(q / (1 - q));
    const row = Float64Array.of(
      Math.log2(1 + (f.best.get("text")?.sites ?? 0)),
      Math.log2(1 + (f.best.get("link")?.sites ?? 0)),
      Math.log2(1 + (f.best.get("contact")?.sites ?? 0)),
      f.burst,
      need,
    );
    add(name, row, name === "ham" ? 0.001 : 0.005, name === "after3");
  }
  const flaggedByContent = (name: string) =>
    scored.filter(
      (r) =>
        (r.kind === name || (name === "after3" && r.kind === "campaign" && r.prior >= 3)) && r.content >= 0.8,
    ).length;
  const contentRate = new Map([...sizes].map(([name, n]) => [name, flaggedByContent(name) / n]));
  const steps = [0, 0.25, 0.5, 0.75, 1, 1.5, 2];
  let best = { weights: null as NetworkWeights | null, after3: -1, worstTrap: 1 };
  for (const text of steps)
    for (const link of steps)
      for (const contact of steps)
        for (const burst of [0, 0.5, 1])
          for (const cap of [2, 3, 4, 5, 6]) {
            let after3 = 0;
            let worstTrap = 0;
            let ok = true;
            for (const [name, g] of groups) {
              let flagged = 0;
              for (const [t, l, c, b, need] of g.rows as unknown as number[][])
                if (Math.min(cap, text * t! + link * l! + contact * c! + burst * b!) >= need!) flagged++;
              const rate = flagged / sizes.get(name)! + contentRate.get(name)!;
              if (g.after3) after3 = rate;
              else {
                if (name !== "ham") worstTrap = Math.max(worstTrap, rate);
                if (rate > contentRate.get(name)! + g.limit) ok = false;
              }
            }
            // Ties go to fewer flagged traps.
            if (ok && (after3 > best.after3 || (after3 === best.after3 && worstTrap < best.worstTrap)))
              best = { weights: { text, link, contact, burst, cap }, after3, worstTrap };
          }
  return best;
};
