import { SIGNATURE_SIZE, similarity } from "./fingerprint.ts";

export type ReportLabel = "spam" | "clean";

/** Near-duplicates share at least this much of their folded 5-grams. */
export const NEAR_DUPLICATE = 0.5;

/**
 * Reported fingerprints, indexed by locality-sensitive hashing: 16 bands of 4 positions. Two
 * signatures that agree on a whole band become candidates; at a true similarity of 0.5 a pair
 * is a candidate with probability 1 - (1 - 0.5^4)^16 = 0.64, at 0.7 with 0.98, at 0.8 with
 * 0.9995; candidates are then checked on all 64 positions. A lookup costs 16 map reads.
 */
const BANDS = 16;
const ROWS = SIGNATURE_SIZE / BANDS;

export interface NearDuplicate {
  label: ReportLabel;
  similarity: number;
}

export class NearDuplicateIndex {
  readonly #bands = Array.from({ length: BANDS }, () => new Map<number, number[]>());
  readonly #signatures: Uint32Array[] = [];
  readonly #labels: ReportLabel[] = [];

  get size(): number {
    return this.#signatures.length;
  }

  add(signature: Uint32Array, label: ReportLabel): void {
    const id = this.#signatures.length;
    this.#signatures.push(signature);
    this.#labels.push(label);
    for (let band = 0; band < BANDS; band++) {
      const key = bandKey(signature, band);
      const bucket = this.#bands[band]!.get(key);
      if (bucket) bucket.push(id);
      else this.#bands[band]!.set(key, [id]);
    }
  }

  /** The most similar reported item at or above NEAR_DUPLICATE; the latest report wins a tie. */
  find(signature: Uint32Array): NearDuplicate | null {
    let best = -1;
    let bestSimilarity = NEAR_DUPLICATE;
    const seen = new Set<number>();
    for (let band = 0; band < BANDS; band++) {
      for (const id of this.#bands[band]!.get(bandKey(signature, band)) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const s = similarity(signature, this.#signatures[id]!);
        if (s > bestSimilarity || (s === bestSimilarity && id > best)) {
          best = id;
          bestSimilarity = s;
        }
      }
    }
    return best < 0 ? null : { label: this.#labels[best]!, similarity: bestSimilarity };
  }
}

const bandKey = (signature: Uint32Array, band: number): number => {
  let h = band;
  for (let i = band * ROWS; i < (band + 1) * ROWS; i++) h = Math.imul(h ^ signature[i]!, 0x9e3779b1) >>> 0;
  return h;
};
