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
 * The weights with the highest catch of copies after three others such that no trap is flagged
 * more than 0.5 %, or than the content alone flags it, whichever is higher (the network must not
 * add false positives where the model already passes 0.5 %); a coarse grid.
 */
export const fit = (scored: readonly Scored[], minSites: number) => {
  const steps = [0.5, 1, 1.5, 2, 2.5];
  let best = { weights: null as NetworkWeights | null, after3: -1, worstTrap: 1 };
  for (const text of steps)
    for (const link of steps)
      for (const contact of steps)
        for (const burst of [0, 0.5, 1])
          for (const cap of [2, 3, 4, 5, 6]) {
            const weights = { text, link, contact, burst, cap };
            const g = evaluate(scored, weights, minSites);
            const traps = Object.values(g.traps);
            if (traps.some((t) => t!.net > Math.max(0.005, t!.content))) continue;
            const worstTrap = Math.max(...traps.map((t) => t!.net));
            // Ties go to fewer flagged traps, then to the lower cap (less said on bulk alone).
            if (g.after3.net > best.after3 || (g.after3.net === best.after3 && worstTrap < best.worstTrap))
              best = { weights, after3: g.after3.net, worstTrap };
          }
  return best;
};
