import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "@sift/testkit";
import { ask, submission } from "./helpers.ts";
import { spawnWorker } from "./process.ts";

let nats: TestServer;
beforeAll(async () => {
  nats = await startServer("nats");
});
afterAll(async () => {
  await nats.stop();
});

describe("model worker process", () => {
  it("starts with only NATS, reports health and readiness, and exits cleanly on SIGTERM", async () => {
    const worker = await spawnWorker(nats.url);
    const base = `http://127.0.0.1:${worker.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    // One check per model it serves (SIFT_MODELS, by default every valid name).
    expect(await ready.json()).toEqual({ ok: true, checks: { "model spam-standard": "ok" } });
    expect((await fetch(`${base}/nope`)).status).toBe(404);

    const client = await connect({ servers: nats.url.replace(/^nats:\/\//, "") });
    const reply = await ask(client, {
      model: "spam-standard",
      submissions: [submission("Is the shop open on Sunday?")],
    });
    expect(reply.ok).toBe(true);

    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    await client.close();
  });
});
