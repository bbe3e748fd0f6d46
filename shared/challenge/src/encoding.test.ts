import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8 } from "./bytes.ts";
import { CHALLENGE_VERSION, decodeChallenge, encodeChallenge, type Challenge } from "./encoding.ts";

const sample: Challenge = {
  version: CHALLENGE_VERSION,
  secretId: "k1",
  configId: "cfg_123",
  issuedAt: Date.UTC(2026, 0, 1),
  expiresAt: Date.UTC(2026, 0, 1, 0, 10),
  nonce: new Uint8Array(16).fill(7),
  difficulty: 9,
  puzzles: 16,
  host: "shop.example",
};

describe("challenge encoding", () => {
  it("still decodes a version 1 challenge (issued before hosts were signed in) with host empty", () => {
    const v2 = encodeChallenge({ ...sample, host: "" });
    // Version 1 is version 2 without the host's length byte at the end.
    const v1 = new Uint8Array([1, ...v2.subarray(1, v2.length - 1)]);
    expect(decodeChallenge(v1)).toEqual({ ...sample, version: 1, host: "" });
    expect(decodeChallenge(new Uint8Array([1, ...v2.subarray(1)]))).toBeNull();
  });

  it("signs the host into the bytes: another host is another challenge", () => {
    expect(encodeChallenge(sample)).not.toEqual(encodeChallenge({ ...sample, host: "evil.example" }));
    expect(decodeChallenge(encodeChallenge(sample))?.host).toBe("shop.example");
  });

  it("decodes what it encodes, for any field values in range", () => {
    const challenge = fc.record({
      version: fc.constant(CHALLENGE_VERSION),
      secretId: fc.string({ minLength: 1, maxLength: 40 }),
      configId: fc.string({ minLength: 1, maxLength: 80 }),
      issuedAt: fc.nat(),
      expiresAt: fc.maxSafeNat(),
      nonce: fc.uint8Array({ minLength: 16, maxLength: 16 }),
      difficulty: fc.integer({ min: 1, max: 24 }),
      puzzles: fc.integer({ min: 1, max: 64 }),
      host: fc.string({ maxLength: 80 }),
    });
    fc.assert(
      fc.property(challenge, (c) => {
        expect(decodeChallenge(encodeChallenge(c))).toEqual(c);
      }),
    );
  });

  it("length-prefixes ids, so moving a character between fields changes the bytes", () => {
    const a = encodeChallenge({ ...sample, secretId: "ab", configId: "c" });
    const b = encodeChallenge({ ...sample, secretId: "a", configId: "bc" });
    expect(a).not.toEqual(b);
    expect(decodeChallenge(b)?.configId).toBe("bc");
  });

  it("refuses trailing bytes, truncation, unknown versions and out-of-range work", () => {
    const bytes = encodeChallenge(sample);
    expect(decodeChallenge(new Uint8Array([...bytes, 0]))).toBeNull();
    expect(decodeChallenge(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(decodeChallenge(new Uint8Array([3, ...bytes.subarray(1)]))).toBeNull();
    // The difficulty byte sits before the puzzles byte and the host (length byte + bytes).
    const tooHard = bytes.slice();
    tooHard[tooHard.length - 3 - utf8(sample.host).length] = 25;
    expect(decodeChallenge(tooHard)).toBeNull();
    expect(decodeChallenge(new Uint8Array())).toBeNull();
  });

  it("refuses ids that are not UTF-8", () => {
    const bytes = encodeChallenge({ ...sample, secretId: "k" });
    expect(bytes[2]).toBe(utf8("k")[0]);
    bytes[2] = 0xff;
    expect(decodeChallenge(bytes)).toBeNull();
  });
});
