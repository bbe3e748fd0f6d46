/**
 * Byte helpers that run unchanged in browsers, Web Workers and Node: no Buffer, no node: imports,
 * because the solver and the challenge decoder ship inside the browser bundle.
 */
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64URL_INDEX = new Map([...B64URL].map((char, index) => [char, index]));

/** Unpadded base64url (RFC 4648 section 5): no `.`, so it can sit between solution separators. */
export const toBase64Url = (bytes: Uint8Array): string => {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const chunk = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += B64URL[(chunk >> (18 - 6 * c)) & 63];
  }
  return out;
};

/**
 * Strict decoder: only the unpadded alphabet, no length that cannot come from whole bytes, and no
 * stray low bits in the last character, so every byte string has exactly one accepted spelling.
 */
export const fromBase64Url = (text: string): Uint8Array | null => {
  if (text.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let buffer = 0;
  let bits = 0;
  let o = 0;
  for (const char of text) {
    const value = B64URL_INDEX.get(char);
    if (value === undefined) return null;
    buffer = ((buffer << 6) | value) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (buffer >> bits) & 0xff;
    }
  }
  if ((buffer & ((1 << bits) - 1)) !== 0) return null;
  return out;
};

export const concatBytes = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
};

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Fatal decoding: invalid UTF-8 is an undecodable challenge, not a replacement character. */
export const fromUtf8 = (bytes: Uint8Array): string | null => {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
};
