import calculateSlot from "cluster-key-slot";

/** Redis Cluster's slot count: every key hashes to one of these (CRC16 of its hash tag, mod 16384). */
const SLOTS = 16_384;

/**
 * Where a spent marker's twin may go, as offsets from the first marker's slot, tried in order:
 * the opposite slot first (on any even layout of two or more masters, each owning at most half of
 * the slots in one run, it is always on another master), then quarters, eighths and sixteenths,
 * for a layout a resharding left uneven. The order is fixed so that every verify replica, with
 * the same slot map, picks the same twin for a solution, and a replay finds the marker.
 */
const TWIN_OFFSETS = [
  8192, 4096, 12288, 2048, 6144, 10240, 14336, 1024, 3072, 5120, 7168, 9216, 11264, 13312, 15360,
];

/**
 * A hash tag for each slot (`tagBySlot[s]` hashes to slot s), so a key can be placed on a chosen
 * slot: base-36 counters taken in order, the first to reach each slot kept. Built once, on the
 * first pair written (about 160,000 CRC16s, some 20 ms); a pure function of nothing, so sharing
 * it between guards shares no state.
 */
let tagBySlot: readonly string[] | undefined;
const tagFor = (slot: number): string => {
  if (!tagBySlot) {
    const tags = new Array<string>(SLOTS);
    for (let i = 0, left = SLOTS; left > 0; i++) {
      const tag = i.toString(36);
      const s = calculateSlot(tag);
      if (tags[s] === undefined) {
        tags[s] = tag;
        left--;
      }
    }
    tagBySlot = tags;
  }
  return tagBySlot[slot]!;
};

/**
 * The twin's slot: the first of TWIN_OFFSETS whose master (by `masterOf`, the client's slot map)
 * is not the first marker's. Undefined when every candidate shares its master (a cluster of one
 * master): one node holds both, so a second marker would protect nothing. With the map not yet
 * known, the opposite slot (the answer on every even layout).
 */
export const twinSlot = (
  slot: number,
  masterOf: (slot: number) => string | undefined,
): number | undefined => {
  const own = masterOf(slot);
  if (own === undefined) return (slot + TWIN_OFFSETS[0]!) % SLOTS;
  for (const offset of TWIN_OFFSETS) {
    const candidate = (slot + offset) % SLOTS;
    const master = masterOf(candidate);
    if (master !== undefined && master !== own) return candidate;
  }
  return undefined;
};

/**
 * The keys of a spent marker pair on a Redis Cluster: `prefix + id` (the one marker a single
 * Redis keeps, so markers written before the pair existed still count) and its twin,
 * `prefix + {tag}: + id`, whose hash tag (the first braces, so nothing in `id` can move it) puts
 * it on `twinSlot`. Only the first when no slot of another master exists.
 */
export const markerKeys = (
  prefix: string,
  id: string,
  masterOf: (slot: number) => string | undefined,
): string[] => {
  const key = prefix + id;
  const twin = twinSlot(calculateSlot(key), masterOf);
  return twin === undefined ? [key] : [key, `${prefix}{${tagFor(twin)}}:${id}`];
};

export { calculateSlot };
