import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, invalidFieldMessage, unknownModelMessage } from "@sift/contracts";
import { form, post, startStack, type Stack } from "@sift/testkit";

/**
 * Every content rule of spec 2.1, 7.1 and 8, through the real gateway, with the test key (which
 * answers after validation, so a 200 here means "accepted").
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
});
afterAll(() => stack?.stop());

const CLEAN = { label: "clean", score: 0, model: "spam-standard" };
const SPAM = { label: "spam", score: 1, model: "spam-standard" };
const bad = (message: string) => ({ ok: false, message });

const json = (body: unknown) =>
  post(`${stack.gatewayUrl}/classify`, JSON.stringify(body), {
    "content-type": "application/json",
    authorization: "Bearer test",
  });
const raw = (body: string, contentType = "application/json") =>
  post(`${stack.gatewayUrl}/classify`, body, { "content-type": contentType, authorization: "Bearer test" });
const formBody = (pairs: Array<[string, string]>) => raw(form(pairs), "application/x-www-form-urlencoded");

const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, "x"]));
const model = "spam-standard";
const emoji = "\u{1F600}";

describe("JSON bodies", () => {
  const table: Array<[string, () => Promise<{ status: number; json: unknown }>, number, unknown]> = [
    ["an array body", () => raw("[]"), 400, bad(ClassifyMessage.malformedJson)],
    ["a string body", () => raw('"hello"'), 400, bad(ClassifyMessage.malformedJson)],
    ["a number body", () => raw("42"), 400, bad(ClassifyMessage.malformedJson)],
    ["a null body", () => raw("null"), 400, bad(ClassifyMessage.malformedJson)],
    ["an empty body", () => raw(""), 400, bad(ClassifyMessage.malformedJson)],
    ["broken JSON", () => raw('{"content":'), 400, bad(ClassifyMessage.malformedJson)],
    [
      "a text/plain body",
      () => raw("content=hi", "text/plain"),
      400,
      bad(ClassifyMessage.unsupportedMediaType),
    ],
    ["a missing model", () => json({ content: "hi" }), 400, bad(ClassifyMessage.missingModel)],
    ["an unknown model", () => json({ content: "hi", model: "gpt" }), 400, bad(unknownModelMessage("gpt"))],
    [
      "a model that is not a string",
      () => json({ content: "hi", model: 5 }),
      400,
      bad('Unknown model "5". Valid models: spam-standard'),
    ],
    [
      "the model checked before the content",
      () => json({ content: 5, model: "x" }),
      400,
      bad(unknownModelMessage("x")),
    ],
    ["a missing content", () => json({ model }), 400, bad(ClassifyMessage.contentType)],
    ["a numeric content", () => json({ content: 5, model }), 400, bad(ClassifyMessage.contentType)],
    ["a list as content", () => json({ content: ["a"], model }), 400, bad(ClassifyMessage.contentType)],
    ["a null content", () => json({ content: null, model }), 400, bad(ClassifyMessage.contentType)],
    [
      "a nested object field",
      () => json({ content: { a: "x", b: { c: 1 } }, model }),
      400,
      bad(invalidFieldMessage("b")),
    ],
    [
      "a list holding an object",
      () => json({ content: { tags: ["a", {}] }, model }),
      400,
      bad(invalidFieldMessage("tags")),
    ],
    [
      "a list holding null",
      () => json({ content: { tags: ["a", null] }, model }),
      400,
      bad(invalidFieldMessage("tags")),
    ],
    [
      "a list holding a list",
      () => json({ content: { tags: [["a"]] }, model }),
      400,
      bad(invalidFieldMessage("tags")),
    ],
    [
      "the exact field name in the message",
      () => json({ content: { 'say "hi"': {} }, model }),
      400,
      bad('content field "say \\"hi\\"" must be a string, number, boolean or list of those'),
    ],
    [
      "a nested object in an ignored _ field",
      () => json({ content: { _meta: { a: 1 }, message: "hi" }, model }),
      200,
      CLEAN,
    ],
    ["an empty string content", () => json({ content: "", model }), 400, bad(ClassifyMessage.contentEmpty)],
    [
      "a blank string content",
      () => json({ content: " \n\t ", model }),
      400,
      bad(ClassifyMessage.contentEmpty),
    ],
    ["an empty object", () => json({ content: {}, model }), 400, bad(ClassifyMessage.contentEmpty)],
    [
      "only empty fields",
      () => json({ content: { a: null, b: "", c: [], d: ["", ""] }, model }),
      400,
      bad(ClassifyMessage.contentEmpty),
    ],
    [
      "only ignored and tracking fields",
      () => json({ content: { _vendor: "x", utm_source: "y", GCLID: "z" }, model }),
      400,
      bad(ClassifyMessage.contentEmpty),
    ],
    ["100 fields", () => json({ content: fields(100), model }), 200, CLEAN],
    ["101 fields", () => json({ content: fields(101), model }), 400, bad(ClassifyMessage.tooManyFields)],
    [
      "101 fields of which one is empty",
      () => json({ content: { ...fields(100), extra: null }, model }),
      200,
      CLEAN,
    ],
    [
      "101 fields of which one is ignored",
      () => json({ content: { ...fields(100), _extra: "x" }, model }),
      200,
      CLEAN,
    ],
    // "message: " is 9 characters.
    ["20,000 characters", () => json({ content: "a".repeat(19_991), model }), 200, CLEAN],
    [
      "20,001 characters",
      () => json({ content: "a".repeat(19_992), model }),
      400,
      bad(ClassifyMessage.tooLong),
    ],
    // "m: " is 3 characters; each emoji is one code point (two UTF-16 units).
    ["20,000 code points of emoji", () => json({ content: { m: emoji.repeat(19_997) }, model }), 200, CLEAN],
    [
      "20,001 code points of emoji",
      () => json({ content: { m: emoji.repeat(19_998) }, model }),
      400,
      bad(ClassifyMessage.tooLong),
    ],
    // "a: " + 9,995 (9,998) + "\n" + "b: x, y" (7) + "\n" + "c: " + n: 20,000 when n is 9,990.
    [
      "lines and list separators at 20,000",
      () => json({ content: { a: "a".repeat(9_995), b: ["x", "y"], c: "c".repeat(9_990) }, model }),
      200,
      CLEAN,
    ],
    [
      "lines and list separators at 20,001",
      () => json({ content: { a: "a".repeat(9_995), b: ["x", "y"], c: "c".repeat(9_991) }, model }),
      400,
      bad(ClassifyMessage.tooLong),
    ],
    [
      "a list joined by comma and space",
      () => json({ content: { a: "a".repeat(19_992), b: ["x", "y"] }, model }),
      400,
      bad(ClassifyMessage.tooLong),
    ],
    ["the test marker in a message", () => json({ content: "buy now vendor-test-spam", model }), 200, SPAM],
    [
      "the test marker in a field name",
      () => json({ content: { "vendor-test-spam": "x" }, model }),
      200,
      SPAM,
    ],
    [
      "the test marker only in an ignored field",
      () => json({ content: { _x: "vendor-test-spam", m: "hi" }, model }),
      200,
      CLEAN,
    ],
    [
      "the test marker only in a link's tracking parameter",
      () => json({ content: { m: "see https://a.example/p?utm_source=vendor-test-spam" }, model }),
      200,
      CLEAN,
    ],
    [
      "numbers and booleans as values",
      () => json({ content: { age: 42, ok: true, big: 1e308 }, model }),
      200,
      CLEAN,
    ],
    [
      "prototype-like field names",
      () => json({ content: JSON.parse('{"__proto__":"a","constructor":"b","toString":"c"}'), model }),
      200,
      CLEAN,
    ],
    [
      "a 10,000-item list",
      () => json({ content: { tags: Array.from({ length: 10_000 }, () => "x") }, model }),
      400,
      bad(ClassifyMessage.tooLong),
    ],
    [
      "NUL bytes and lone surrogates",
      () => raw(`{"model":"spam-standard","content":"a\\u0000b\\ud800c"}`),
      200,
      CLEAN,
    ],
    [
      "deep nesting in a field",
      () => raw(`{"model":"spam-standard","content":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`),
      400,
      bad(invalidFieldMessage("a")),
    ],
    ["a huge number", () => raw(`{"model":"spam-standard","content":{"n":1e400}}`), 200, CLEAN],
  ];
  it.each(table)("%s", async (_name, send, status, body) => {
    const reply = await send();
    expect([reply.status, reply.json]).toEqual([status, body]);
  });
});

describe("form-encoded bodies", () => {
  const table: Array<[string, Array<[string, string]>, number, unknown]> = [
    [
      "fields as content with _model",
      [
        ["name", "Ann"],
        ["message", "hi"],
        ["_model", model],
      ],
      200,
      CLEAN,
    ],
    ["a missing _model", [["message", "hi"]], 400, bad(ClassifyMessage.missingModel)],
    [
      "a field named model is content, not the model",
      [
        ["model", "spam-standard"],
        ["message", "hi"],
      ],
      400,
      bad(ClassifyMessage.missingModel),
    ],
    [
      "an unknown _model",
      [
        ["message", "hi"],
        ["_model", "big"],
      ],
      400,
      bad(unknownModelMessage("big")),
    ],
    [
      "only the key and the model",
      [
        ["secretKey", "test"],
        ["_model", model],
      ],
      400,
      bad(ClassifyMessage.contentEmpty),
    ],
    [
      "a repeated field read as a list",
      [
        ["tag", "vendor"],
        ["tag", "-test-spam"],
        ["_model", model],
      ],
      200,
      CLEAN,
    ],
    [
      "a repeated field's items joined with ', '",
      [
        ["t", "vendor-test-spam"],
        ["t", "x"],
        ["_model", model],
      ],
      200,
      SPAM,
    ],
    [
      "101 fields",
      [...Object.keys(fields(101)).map((k): [string, string] => [k, "x"]), ["_model", model]],
      400,
      bad(ClassifyMessage.tooManyFields),
    ],
    [
      "100 fields",
      [...Object.keys(fields(100)).map((k): [string, string] => [k, "x"]), ["_model", model]],
      200,
      CLEAN,
    ],
    [
      "20,001 characters",
      [
        ["message", "a".repeat(19_992)],
        ["_model", model],
      ],
      400,
      bad(ClassifyMessage.tooLong),
    ],
    [
      "20,000 characters",
      [
        ["message", "a".repeat(19_991)],
        ["_model", model],
      ],
      200,
      CLEAN,
    ],
    [
      "prototype-like field names",
      [
        ["__proto__", "x"],
        ["constructor", "y"],
        ["_model", model],
      ],
      200,
      CLEAN,
    ],
    [
      "tracking fields dropped",
      [
        ["utm_campaign", "x"],
        ["fbclid", "y"],
        ["_model", model],
      ],
      400,
      bad(ClassifyMessage.contentEmpty),
    ],
  ];
  it.each(table)("%s", async (_name, pairs, status, body) => {
    const reply = await formBody(pairs);
    expect([reply.status, reply.json]).toEqual([status, body]);
  });
});
