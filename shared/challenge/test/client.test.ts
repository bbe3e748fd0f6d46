import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createKey, freePort, startStack, type Stack } from "@sift/testkit";
import { ChallengeFetchError, parseSolution, solveFromService } from "../src/index.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
});
afterAll(() => stack.stop());

describe("solveFromService", () => {
  it("fetches a challenge for the site key and returns a four-part solution for its configuration", async () => {
    const key = await createKey(stack.keystore, { kind: "challenge" });
    const { solution } = await solveFromService({ siteKey: key.siteKey!, baseUrl: `${stack.gatewayUrl}/` });
    expect(parseSolution(solution)).toMatchObject({
      ok: true,
      solution: { challenge: { configId: key.configId } },
    });
  });

  it("fails as refused, with the status, when the service answers with an error", async () => {
    const error = await solveFromService({ siteKey: "pk_unknown", baseUrl: stack.gatewayUrl }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ChallengeFetchError);
    expect(error).toMatchObject({
      kind: "refused",
      status: 404,
      message: expect.stringContaining("Unknown site key"),
    });
  });

  it("fails as unreachable when nothing listens", async () => {
    const error = await solveFromService({
      siteKey: "pk_x",
      baseUrl: `http://127.0.0.1:${await freePort()}`,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: "unreachable" });
  });
});
