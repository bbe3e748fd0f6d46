import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAM_STANDARD } from "@sift/contracts";
import { post, startSift, type SiftUnderTest } from "../src/index.ts";

/** The module a site's own suite would use: a whole Sift, keys, and its base URL. */
let sift: SiftUnderTest;
beforeAll(async () => {
  sift = await startSift();
}, 90_000);
afterAll(async () => {
  await sift?.stop();
});

describe("startSift", () => {
  it("serves classify and verify at its base URL, with keys made by its helper", async () => {
    const { secretKey } = await sift.createKey({ kind: "classify" });
    const verdict = await post(
      `${sift.baseUrl}/classify`,
      { content: { name: "Ann", message: "Is the shop open on Sunday?" }, model: SPAM_STANDARD },
      { authorization: `Bearer ${secretKey}` },
    );
    expect(verdict.status).toBe(200);
    expect(verdict.json).toMatchObject({ label: "clean", model: SPAM_STANDARD });

    const challenge = await sift.createKey({ kind: "challenge" });
    expect(challenge.siteKey).toBeDefined();
    const verify = await post(`${sift.baseUrl}/verify`, {
      secretKey: challenge.secretKey,
      solution: "x.y.z.w",
    });
    expect(verify.json).toMatchObject({ ok: false });
    expect(sift.redisUrl).toMatch(/^redis:\/\//);
  });
});
