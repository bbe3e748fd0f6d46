import fc from "fast-check";
import { MAX_BODY_BYTES } from "@sift/contracts";

/**
 * Generated hostile requests for the fuzz suite: every content type, odd Authorization and
 * X-Api-Key headers, bodies of every shape (JSON of any kind, the endpoint's own fields with
 * wrong values, form encoding with repeated and bracketed names, binary garbage, deep nesting,
 * prototype-pollution payloads), sent with a length or chunked.
 */
export interface FuzzRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Sent chunked (no Content-Length). */
  chunked: boolean;
}

export type Endpoint = "classify" | "verify" | "feedback" | "challenge";

export interface Keys {
  classify: string;
  challenge: string;
  siteKey: string;
  /** A real solution's parts to borrow from. */
  solution: string;
}

export const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=utf-8",
  "text/plain",
  "text/html",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/octet-stream",
  "application/vnd.api+json",
  "application/merge-patch+json",
  "*/*",
  "json",
  ";;;",
  "application/json, text/plain",
  "",
] as const;

/** Header values Node's client can send (printable ASCII and Latin-1). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x7e : c)),
  maxLength: 80,
});

const authorization = (keys: Keys) =>
  fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      "Bearer test",
      `Bearer ${keys.classify}`,
      `Bearer ${keys.challenge}`,
      `bearer ${keys.classify}`,
      `Bearer  ${keys.classify}`,
      `Bearer ${keys.classify} `,
      `Bearer ${keys.classify.toUpperCase()}`,
      `Bearer ${keys.classify}x`,
      "Bearer",
      "Bearer ",
      "Basic dGVzdDp0ZXN0",
      "Token test",
      "Bearer test, Bearer other",
      `Bearer ${"a".repeat(8_000)}`,
      "Bearer __proto__",
      "Bearer constructor",
      "Bearer t\u00e9st",
    ),
    headerText.map((t) => `Bearer ${t}`),
    headerText,
  );

const apiKey = (keys: Keys) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    fc.constantFrom("test", keys.classify, keys.challenge, "", " ", "__proto__", keys.siteKey),
    headerText,
  );

const POLLUTION_JSON = [
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"content":{"__proto__":{"polluted":"yes"}},"model":"spam-standard"}',
  '{"content":{"constructor":{"prototype":{"polluted":"yes"}}},"model":"spam-standard"}',
  '{"content":"x","model":"spam-standard","__proto__":{"polluted":"yes","isAdmin":true}}',
  '{"solution":{"__proto__":{"polluted":"yes"}},"secretKey":"test"}',
  '{"siteKey":{"__proto__":{"polluted":"yes"}}}',
  '{"content":{"__proto__":"x","toString":"y","valueOf":"z","hasOwnProperty":"w"},"model":"spam-standard","label":"spam"}',
  '[{"__proto__":{"polluted":"yes"}}]',
];

const POLLUTION_FORM = [
  "__proto__[polluted]=yes&content=x&_model=spam-standard",
  "constructor[prototype][polluted]=yes&message=hi",
  "__proto__.polluted=yes&solution=ok&secretKey=test",
  "__proto__=x&__proto__=y&message=z",
  "content[__proto__][polluted]=yes&_model=spam-standard",
  "toString=1&valueOf=2&hasOwnProperty=3&message=hi&_label=spam",
  "siteKey[__proto__][polluted]=yes",
];

const nested = (depth: number, open: string, close: string, inner: string) =>
  open.repeat(depth) + inner + close.repeat(depth);

/** A field value of any kind classify may meet: scalars, lists, nested objects, odd names. */
const fieldValue = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)), {
    maxLength: 5,
  }),
  fc.object({ maxDepth: 2 }),
);
const content = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("_x", "utm_source", "__proto__", "constructor")),
    fieldValue,
    {
      maxKeys: 120,
    },
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant("vendor-test-spam"),
);

const fields = (endpoint: Endpoint, keys: Keys): fc.Arbitrary<Record<string, unknown>> => {
  const key = fc.option(fc.constantFrom("test", keys.classify, keys.challenge, "nope", ""), {
    nil: undefined,
  });
  switch (endpoint) {
    case "classify":
      return fc.record(
        {
          content,
          model: fc.oneof(fc.constant("spam-standard"), fc.string({ maxLength: 20 }), fc.jsonValue()),
          secretKey: key,
        },
        { requiredKeys: [] },
      );
    case "feedback":
      return fc.record(
        {
          content,
          label: fc.oneof(fc.constantFrom("spam", "clean", "SPAM", ""), fc.jsonValue()),
          secretKey: key,
        },
        { requiredKeys: [] },
      );
    case "verify":
      return fc.record(
        {
          solution: fc.oneof(
            fc.constantFrom("ok", "nok", "", keys.solution, keys.solution.split(".").slice(0, 3).join(".")),
            fc.string({ maxLength: 300 }),
            fc.array(fc.string({ maxLength: 40 }), { minLength: 1, maxLength: 6 }).map((p) => p.join(".")),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          secretKey: key,
        },
        { requiredKeys: [] },
      );
    case "challenge":
      return fc.record(
        {
          siteKey: fc.oneof(
            fc.constantFrom(keys.siteKey, keys.siteKey.toUpperCase(), "", "pk_"),
            fc.string({ maxLength: 60 }),
            fc.jsonValue({ maxDepth: 2 }),
          ),
        },
        { requiredKeys: [] },
      );
  }
};

/** A form value: text as it is, anything else as JSON (objects may lack a toString). */
const formValue = (v: unknown): string => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

const formOf = (record: Record<string, unknown>): string => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(record)) {
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value as Record<string, unknown>))
        params.append(inner === "" ? name : inner, formValue(v));
    } else if (Array.isArray(value)) for (const v of value) params.append(name, formValue(v));
    else params.append(name === "model" ? "_model" : name === "label" ? "_label" : name, formValue(value));
  }
  return params.toString();
};

const body = (endpoint: Endpoint, keys: Keys): fc.Arbitrary<string | Buffer> =>
  fc.oneof(
    { weight: 6, arbitrary: fields(endpoint, keys).map((r) => JSON.stringify(r)) },
    { weight: 3, arbitrary: fields(endpoint, keys).map(formOf) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? "") },
    { weight: 1, arbitrary: fc.constantFrom(...POLLUTION_JSON, ...POLLUTION_FORM) },
    { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 10, max: 20_000 }), fc.constantFrom("arr", "obj", "content", "form"))
        .map(([depth, shape]) =>
          shape === "arr"
            ? nested(depth, "[", "]", "1")
            : shape === "obj"
              ? nested(depth, '{"a":', "}", "1")
              : shape === "content"
                ? `{"model":"spam-standard","content":${nested(depth, '{"a":', "}", '"x"')}}`
                : `${"content".concat("[a]".repeat(Math.min(depth, 2_000)))}=x`,
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "null",
        "{}",
        "[]",
        '"x"',
        "1e999",
        "{",
        '{"content":',
        "\u0000",
        "\ufeff{}",
      ),
    },
  );

export const fuzzRequests = (endpoint: Endpoint, keys: Keys): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      contentType: fc.constantFrom(...CONTENT_TYPES),
      authorization: authorization(keys),
      apiKey: apiKey(keys),
      body: body(endpoint, keys),
      chunked: fc.boolean(),
      query: fc.constantFrom(
        "",
        "",
        "",
        "?explain=1",
        `?siteKey=${keys.siteKey}`,
        "?__proto__[polluted]=yes",
        "?explain=1&explain=0",
      ),
      gzip: fc.constantFrom(false, false, false, false, true),
    })
    .map((r) => ({
      path: `/${endpoint}${r.query}`,
      headers: {
        ...(r.contentType ? { "content-type": r.contentType } : {}),
        ...(r.authorization === undefined ? {} : { authorization: r.authorization }),
        ...(r.apiKey === undefined ? {} : { "x-api-key": r.apiKey }),
        // A Content-Encoding the body does not have: the gateway must refuse it cleanly.
        ...(r.gzip ? { "content-encoding": "gzip" } : {}),
      },
      body: Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body),
      chunked: r.chunked,
    }));

/**
 * Bodies at the limit: one byte under, exactly at, one byte over, each with a length and chunked,
 * as JSON and as a form.
 */
export const limitRequests = (endpoint: Endpoint, keys: Keys): FuzzRequest[] => {
  const out: FuzzRequest[] = [];
  for (const size of [MAX_BODY_BYTES - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1]) {
    for (const chunked of [false, true]) {
      const prefix = '{"model":"spam-standard","content":"';
      const jsonBody = Buffer.from(`${prefix}${"a".repeat(size - prefix.length - 2)}"}`);
      const formBody = Buffer.from(`message=${"b".repeat(size - 8)}`);
      for (const [type, b] of [
        ["application/json", jsonBody],
        ["application/x-www-form-urlencoded", formBody],
      ] as const) {
        out.push({
          path: `/${endpoint}`,
          headers: {
            "content-type": type,
            authorization: endpoint === "verify" ? `Bearer ${keys.challenge}` : "Bearer test",
          },
          body: b,
          chunked,
        });
      }
    }
  }
  return out;
};
