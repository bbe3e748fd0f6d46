/**
 * 32-bit FNV-1a over UTF-16 code units. Chosen because it is tiny, has no dependency and gives
 * the same bucket in the trainer and the worker on every platform (no locale, no endianness).
 */
export const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
};
