import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { createRedis, redisReady } from "@sift/runtime";
import { TrainingRequests } from "../src/service.ts";

const redis = createRedis({ url: inject("redisUrl") }, "training-requests-test");
beforeAll(() => redisReady(redis));
afterAll(() => redis.disconnect());
/** Each test its own model name (its own hash tag), so no other file's request is seen. */
const requests = () => new TrainingRequests({ redis, model: `test-${randomUUID()}` });

describe("training asked through /v1", () => {
  it("is one request at a time: asked, claimed once, finished with its candidate, then asked anew", async () => {
    const r = requests();
    expect(await r.latest()).toBeNull();
    expect(await r.claim(1_000)).toBeNull();
    const first = await r.request(1_000);
    expect(first).toMatchObject({
      state: "queued",
      requestedAt: new Date(1_000).toISOString(),
      startedAt: null,
    });
    // Asked again while queued: the same request.
    expect((await r.request(1_500)).id).toBe(first.id);
    expect(await r.claim(2_000)).toBe(first.id);
    // Claimed: no second trainer gets it, and asking again answers the running one.
    expect(await r.claim(2_001)).toBeNull();
    expect((await r.request(2_002)).id).toBe(first.id);
    expect(await r.finish(first.id, 3_000, { version: "1.5.0+x-d4" })).toBe(true);
    expect(await r.latest()).toMatchObject({
      id: first.id,
      state: "done",
      startedAt: new Date(2_000).toISOString(),
      finishedAt: new Date(3_000).toISOString(),
      version: "1.5.0+x-d4",
      error: null,
    });
    // Finished: finishing again does nothing, and a new ask is a new request.
    expect(await r.finish(first.id, 3_500, { error: "late" })).toBe(false);
    const second = await r.request(4_000);
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ state: "queued", version: null, error: null });
  });

  it("records a failure, and lets another trainer take over one whose lease ran out", async () => {
    const r = requests();
    const asked = await r.request(0);
    expect(await r.claim(10, 100)).toBe(asked.id);
    // The trainer died: within its lease nobody takes it; after, the next claim does.
    expect(await r.claim(100, 100)).toBeNull();
    expect(await r.claim(111, 100)).toBe(asked.id);
    expect(await r.finish(asked.id, 150, { error: "no kept reviews to train on" })).toBe(true);
    expect(await r.latest()).toMatchObject({
      state: "failed",
      error: "no kept reviews to train on",
      version: null,
    });
    // A request for another id than the one running is not finished by it.
    const next = await r.request(200);
    expect(await r.claim(210)).toBe(next.id);
    expect(await r.finish(asked.id, 220, { version: "v" })).toBe(false);
    expect((await r.latest())!.state).toBe("running");
  });
});
