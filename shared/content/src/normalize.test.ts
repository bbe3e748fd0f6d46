import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { codePointLength, contentText, normalizeContent } from "./normalize.ts";
import { isTrackingName, stripTrackingFromLinks } from "./tracking.ts";

describe("normalizeContent", () => {
  it("reads a string as one field named message", () => {
    expect(normalizeContent("hi")).toEqual({ ok: true, fields: [["message", "hi"]] });
  });

  it("keeps field order and turns numbers, booleans and lists into text", () => {
    expect(normalizeContent({ b: 1, a: true, c: ["x", 2, false] })).toEqual({
      ok: true,
      fields: [
        ["b", "1"],
        ["a", "true"],
        ["c", "x, 2, false"],
      ],
    });
  });

  it("drops _ fields, tracking fields and empty values", () => {
    const result = normalizeContent({
      _vendor: "s",
      utm_medium: "m",
      Fbclid: "f",
      a: null,
      b: "",
      c: [],
      d: "x",
    });
    expect(result).toEqual({ ok: true, fields: [["d", "x"]] });
  });

  it("removes tracking parameters from links and keeps the rest of the link", () => {
    const result = normalizeContent(
      "see https://shop.example/a/b?id=7&utm_source=x&gclid=1#top and http://x.example/?fbclid=2",
    );
    expect(result).toEqual({
      ok: true,
      fields: [["message", "see https://shop.example/a/b?id=7#top and http://x.example/"]],
    });
  });

  it("names the first invalid field", () => {
    expect(normalizeContent({ ok: "x", bad: { n: 1 } })).toEqual({
      ok: false,
      reason: "invalid_field",
      field: "bad",
    });
  });

  it("treats prototype names as ordinary field names", () => {
    const content = JSON.parse(
      '{"__proto__":{"polluted":1},"constructor":"c","toString":{"x":1}}',
    ) as unknown;
    // __proto__ starts with "_", so it is ignored like any such field; toString is checked.
    expect(normalizeContent(content)).toEqual({ ok: false, reason: "invalid_field", field: "toString" });
    expect(normalizeContent({ constructor: "c", hasOwnProperty: 1 })).toEqual({
      ok: true,
      fields: [
        ["constructor", "c"],
        ["hasOwnProperty", "1"],
      ],
    });
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("replaces lone surrogates so the text is well formed", () => {
    expect(normalizeContent("a\ud800b")).toEqual({ ok: true, fields: [["message", "a\ufffdb"]] });
  });
});

describe("codePointLength", () => {
  it("counts astral characters once", () => {
    expect(codePointLength("a\u{1F600}b")).toBe(3);
    expect(codePointLength("\ud800")).toBe(1);
  });
  it("agrees with the spread operator on any string", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (s) => codePointLength(s) === [...s].length));
  });
});

const fieldValue = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.integer(), fc.boolean()), { maxLength: 5 }),
);

describe("properties", () => {
  it("normalisation is idempotent", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fieldValue, { maxKeys: 10 }), (content) => {
        const once = normalizeContent(content);
        if (!once.ok) return;
        const twice = normalizeContent(Object.fromEntries(once.fields));
        expect(twice).toEqual(once);
        expect(contentText(twice.ok ? twice.fields : [])).toBe(contentText(once.fields));
      }),
    );
  });

  it("removing tracking parameters never changes a link's host or path", () => {
    const tracking = fc.constantFrom("utm_source", "UTM_Campaign", "gclid", "fbclid", "_ga", "mc_eid");
    const param = fc.tuple(
      fc.oneof(tracking, fc.stringMatching(/^[a-z]{1,6}$/)),
      fc.stringMatching(/^[a-z0-9]{0,6}$/),
    );
    fc.assert(
      fc.property(fc.webUrl({ withFragments: true }), fc.array(param, { maxLength: 5 }), (base, params) => {
        const url = new URL(base);
        url.search = "";
        const query = params.map(([k, v]) => `${k}=${v}`).join("&");
        const link = `${url.origin}${url.pathname}${query ? `?${query}` : ""}${url.hash}`;
        const stripped = new URL(stripTrackingFromLinks(link));
        expect(stripped.host).toBe(url.host);
        expect(stripped.pathname).toBe(url.pathname);
        expect([...stripped.searchParams.keys()].some(isTrackingName)).toBe(false);
        const kept = params.filter(([k]) => !isTrackingName(k)).map(([k, v]) => `${k}=${v}`);
        expect([...stripped.searchParams].map(([k, v]) => `${k}=${v}`)).toEqual(kept);
      }),
    );
  });
});
