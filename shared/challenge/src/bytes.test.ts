import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "./bytes.ts";

describe("base64url", () => {
  it("round-trips any bytes and matches Node's encoder", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const text = toBase64Url(bytes);
        expect(text).toBe(Buffer.from(bytes).toString("base64url"));
        expect(fromBase64Url(text)).toEqual(bytes);
      }),
    );
  });

  it("refuses padding, other alphabets, impossible lengths and stray low bits", () => {
    expect(fromBase64Url("AA==")).toBeNull();
    expect(fromBase64Url("A+/A")).toBeNull();
    expect(fromBase64Url("AAAAA")).toBeNull();
    expect(fromBase64Url("AB")).toBeNull(); // "AA" is the only spelling of one zero byte
    expect(fromBase64Url("AA")).toEqual(new Uint8Array([0]));
    expect(fromBase64Url("a.b")).toBeNull();
  });
});
