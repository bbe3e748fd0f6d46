import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { startStack, type Stack } from "@sift/testkit";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
});
afterAll(async () => {
  await stack?.stop();
});

describe("GET /openapi.json", () => {
  it("serves the committed docs/openapi.json as cacheable JSON", async () => {
    const committed = JSON.parse(
      readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"),
    ) as unknown;
    const res = await fetch(`${stack.gatewayUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await res.json()).toEqual(committed);
  });

  it("answers a revalidation with its ETag by 304", async () => {
    const first = await fetch(`${stack.gatewayUrl}/openapi.json`);
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    // fetch adds `Cache-Control: no-cache` to a conditional request unless one is given, and
    // no-cache asks the server to skip its freshness check.
    const again = await fetch(`${stack.gatewayUrl}/openapi.json`, {
      headers: { "if-none-match": etag!, "cache-control": "max-age=0" },
    });
    expect(again.status).toBe(304);
  });
});
