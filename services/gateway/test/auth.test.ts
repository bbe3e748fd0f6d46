import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage, VerifyMessage } from "@sift/contracts";
import { createKey, form, post, startServer, startStack, type Stack, type TestServer } from "@sift/testkit";

/**
 * One table of authentication cases, run against both endpoints (STYLE.md). Each case says how
 * the key is sent and what each endpoint must answer. Classify answers 503 past auth because
 * no model worker runs here; verify answers `Invalid solution length` for the solution "x" once
 * the key is accepted.
 */
let stack: Stack;
// A NATS of its own: other test files run model workers on the shared one.
let nats: TestServer;
let keys: { classify: string; challenge: string; rotated: string; classifyOff: string };

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  const classify = await createKey(stack.keystore, { kind: "classify" });
  const challenge = await createKey(stack.keystore, { kind: "challenge" });
  const rotated = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.rotate(rotated.configId);
  const off = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.updateWorkspace(off.workspaceId, { classify: false });
  keys = {
    classify: classify.secretKey,
    challenge: challenge.secretKey,
    rotated: rotated.secretKey,
    classifyOff: off.secretKey,
  };
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

type Sent = { bearer?: string; apiKey?: string; body?: unknown };
type Expect = { classify: [number, string]; verify: string };
const PAST_AUTH: Expect["classify"] = [503, ClassifyMessage.unavailable];
const VERIFY_PAST_KEY = VerifyMessage.invalidSolutionLength;

const cases: Array<{ name: string; sent: (k: typeof keys) => Sent; expect: Expect }> = [
  {
    name: "no key at all",
    sent: () => ({}),
    expect: { classify: [401, ClassifyMessage.missingKey], verify: VerifyMessage.missingKey },
  },
  {
    name: "an empty bearer token and an empty body key",
    sent: () => ({ bearer: "", body: "" }),
    expect: { classify: [401, ClassifyMessage.missingKey], verify: VerifyMessage.missingKey },
  },
  {
    name: "an unknown key",
    sent: () => ({ bearer: "sk_not_a_real_key" }),
    expect: { classify: [401, ClassifyMessage.invalidKey], verify: VerifyMessage.invalidKey },
  },
  {
    name: "a rotated key",
    sent: (k) => ({ apiKey: k.rotated }),
    expect: { classify: [401, ClassifyMessage.invalidKey], verify: VerifyMessage.invalidKey },
  },
  {
    name: "a body key that is not a string",
    sent: () => ({ body: 12345 }),
    expect: { classify: [401, ClassifyMessage.invalidKey], verify: VerifyMessage.invalidKey },
  },
  {
    name: "the classify key as a bearer token",
    sent: (k) => ({ bearer: k.classify }),
    expect: { classify: PAST_AUTH, verify: VerifyMessage.invalidKey },
  },
  {
    name: "the classify key in X-Api-Key",
    sent: (k) => ({ apiKey: k.classify }),
    expect: { classify: PAST_AUTH, verify: VerifyMessage.invalidKey },
  },
  {
    name: "the classify key in the body",
    sent: (k) => ({ body: k.classify }),
    expect: { classify: PAST_AUTH, verify: VerifyMessage.invalidKey },
  },
  {
    name: "the classify key sent three ways, identical",
    sent: (k) => ({ bearer: k.classify, apiKey: k.classify, body: k.classify }),
    expect: { classify: PAST_AUTH, verify: VerifyMessage.invalidKey },
  },
  {
    name: "the challenge key as a bearer token",
    sent: (k) => ({ bearer: k.challenge }),
    expect: { classify: [401, ClassifyMessage.challengeKey], verify: VERIFY_PAST_KEY },
  },
  {
    name: "the challenge key in the body with a different bearer token",
    sent: (k) => ({ body: k.challenge, bearer: "sk_other" }),
    expect: { classify: [401, ClassifyMessage.invalidKey], verify: VERIFY_PAST_KEY },
  },
  {
    name: "the challenge key in X-Api-Key with a different bearer token",
    sent: (k) => ({ apiKey: k.challenge, bearer: "sk_other" }),
    expect: { classify: [401, ClassifyMessage.invalidKey], verify: VERIFY_PAST_KEY },
  },
  {
    name: "an unknown body key over a valid challenge bearer token",
    sent: (k) => ({ body: "sk_other", bearer: k.challenge }),
    expect: { classify: [401, ClassifyMessage.invalidKey], verify: VerifyMessage.invalidKey },
  },
  {
    name: "a key of a workspace with Classify off",
    sent: (k) => ({ bearer: k.classifyOff }),
    expect: { classify: [403, ClassifyMessage.classifyOff], verify: VerifyMessage.invalidKey },
  },
];

const send = (endpoint: "classify" | "verify", sent: Sent, encoding: "json" | "form") => {
  const headers: Record<string, string> = {};
  if (sent.bearer !== undefined) headers["authorization"] = `Bearer ${sent.bearer}`;
  if (sent.apiKey !== undefined) headers["x-api-key"] = sent.apiKey;
  const fields: Record<string, unknown> =
    endpoint === "classify" ? { content: "hello there", model: "spam-standard" } : { solution: "x" };
  if (sent.body !== undefined) fields["secretKey"] = sent.body;
  if (encoding === "json") return post(`${stack.gatewayUrl}/${endpoint}`, fields, headers);
  const pairs: Array<[string, string]> =
    endpoint === "classify"
      ? [
          ["message", "hello there"],
          ["_model", "spam-standard"],
        ]
      : [["solution", "x"]];
  if (sent.body !== undefined) pairs.push(["secretKey", String(sent.body)]);
  return post(`${stack.gatewayUrl}/${endpoint}`, form(pairs), {
    ...headers,
    "content-type": "application/x-www-form-urlencoded",
  });
};

describe.each(["json", "form"] as const)("authentication with a %s body", (encoding) => {
  // A form cannot send a non-string key: its 12345 is the string "12345", an unknown key.
  const applicable = cases.filter((c) => encoding === "json" || c.name !== "a body key that is not a string");
  it.each(applicable)("classify: $name", async ({ sent, expect: want }) => {
    const reply = await send("classify", sent(keys), encoding);
    expect([reply.status, reply.json]).toEqual([want.classify[0], { ok: false, message: want.classify[1] }]);
  });
  it.each(applicable)("verify: $name", async ({ sent, expect: want }) => {
    const reply = await send("verify", sent(keys), encoding);
    expect([reply.status, reply.json]).toEqual([200, { ok: false, message: want.verify }]);
  });
});

describe("authentication details", () => {
  it("accepts a bearer scheme in any case", async () => {
    const reply = await post(
      `${stack.gatewayUrl}/classify`,
      { content: "hi", model: "spam-standard" },
      {
        authorization: `bEaReR ${keys.challenge}`,
      },
    );
    expect(reply.json).toEqual({ ok: false, message: ClassifyMessage.challengeKey });
  });

  it("refuses a rotated key at once and accepts the new one", async () => {
    const created = await createKey(stack.keystore, { kind: "challenge" });
    const before = await post(`${stack.gatewayUrl}/verify`, { solution: "x", secretKey: created.secretKey });
    expect(before.json).toEqual({ ok: false, message: VERIFY_PAST_KEY });
    const fresh = await stack.keystore.rotate(created.configId);
    const old = await post(`${stack.gatewayUrl}/verify`, { solution: "x", secretKey: created.secretKey });
    expect(old.json).toEqual({ ok: false, message: VerifyMessage.invalidKey });
    const next = await post(`${stack.gatewayUrl}/verify`, { solution: "x", secretKey: fresh! });
    expect(next.json).toEqual({ ok: false, message: VERIFY_PAST_KEY });
  });

  it("answers Missing solution before judging the key on verify", async () => {
    const reply = await post(`${stack.gatewayUrl}/verify`, { secretKey: "sk_unknown" });
    expect(reply.json).toEqual({ ok: false, message: VerifyMessage.missingSolution });
  });

  it("stores secrets only as hashes", async () => {
    const created = await createKey(stack.keystore, { kind: "classify" });
    const redisKeys = await stack.redis.keys("sift:*");
    const values = await Promise.all(
      redisKeys.map(async (k) =>
        (await stack.redis.type(k)) === "hash" ? JSON.stringify(await stack.redis.hgetall(k)) : "",
      ),
    );
    expect(redisKeys.join(" ")).not.toContain(created.secretKey);
    expect(values.join(" ")).not.toContain(created.secretKey);
  });
});
