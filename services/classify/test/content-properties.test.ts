import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ClassifyMessage } from "@sift/contracts";
import { post, startStack, type Stack } from "@sift/testkit";

/**
 * Whatever a caller sends, the answer is a 200 or a 400 with one of the spec's texts: never a
 * 5xx, never a hang. Runs through the real gateway with the test key.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
});
afterAll(() => stack?.stop());

const SPEC_400 = [
  ClassifyMessage.malformedJson,
  ClassifyMessage.contentType,
  ClassifyMessage.contentEmpty,
  ClassifyMessage.tooManyFields,
  ClassifyMessage.tooLong,
  ClassifyMessage.missingModel,
];
const FIELD = /^content field ".*" must be a string, number, boolean or list of those$/s;
const MODEL = /^Unknown model ".*"\. Valid models: spam-standard$/s;

const judge = (reply: { status: number; json: unknown }) => {
  if (reply.status === 200) {
    expect(reply.json).toMatchObject({ model: "spam-standard" });
    return;
  }
  expect(reply.status).toBe(400);
  const message = (reply.json as { message: string }).message;
  expect(SPEC_400.includes(message as never) || FIELD.test(message) || MODEL.test(message)).toBe(true);
};

const send = (body: unknown) =>
  post(`${stack.gatewayUrl}/classify`, JSON.stringify(body) ?? "", {
    "content-type": "application/json",
    authorization: "Bearer test",
  });

describe("any input", () => {
  it("any JSON value as the body gets a 200 or a spec 400", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (body) => judge(await send(body))),
      { numRuns: 150 },
    );
  });

  it("any object as content gets a 200 or a spec 400", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.object({ maxDepth: 3 }),
        fc.constantFrom("spam-standard", "x"),
        async (content, model) => judge(await send({ content, model })),
      ),
      { numRuns: 150 },
    );
  });

  it("any form body gets a 200 or a spec 400", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 8 }), async (pairs) => {
        const reply = await post(
          `${stack.gatewayUrl}/classify`,
          new URLSearchParams([...pairs, ["_model", "spam-standard"]]).toString(),
          {
            "content-type": "application/x-www-form-urlencoded",
            authorization: "Bearer test",
          },
        );
        judge(reply);
      }),
      { numRuns: 100 },
    );
  });
});
