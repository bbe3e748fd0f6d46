import { connect, type NatsConnection } from "nats";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { inferenceSubject, SPAM_STANDARD } from "@sift/contracts";
import { readModelMeta } from "@sift/model";
import { startServer, type TestServer } from "@sift/testkit";
import { ask, startWorker, submission, type RunningWorker } from "./helpers.ts";

// Its own NATS: workers here must be the only subscribers (queue-group counts, "no responders"),
// and must not answer other test files' requests on the shared server.
let server: TestServer;
let natsUrl: string;
let client: NatsConnection;
const workers: RunningWorker[] = [];
const launch = async (config?: { batchWindowMs: number; batchMaxItems: number }) => {
  const running = await startWorker(natsUrl, config);
  workers.push(running);
  return running;
};

beforeAll(async () => {
  server = await startServer("nats");
  natsUrl = server.url;
  client = await connect({ servers: natsUrl.replace(/^nats:\/\//, "") });
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

describe("model worker", () => {
  it("answers each item with a score in [0, 1], the model name and the committed version", async () => {
    await launch();
    const reply = await ask(client, {
      model: "spam-standard",
      submissions: [
        submission(
          "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now or visit http://bit.ly/cl4im",
        ),
        submission("Hello, is the room still available for the weekend of 14 June? We are two adults."),
        [["message", "Заработок в интернете от 5000$ в неделю, пиши в телеграм"]],
      ],
    });
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.model).toBe("spam-standard");
    expect(reply.version).toBe(readModelMeta().version);
    expect(reply.scores).toHaveLength(3);
    for (const score of reply.scores) expect(score >= 0 && score <= 1).toBe(true);
    expect(reply.scores[0]).toBeGreaterThanOrEqual(0.8);
    expect(reply.scores[1]).toBeLessThan(0.8);
  });

  it.each([
    ["a body that is not JSON", "{not json"],
    ["no submissions", { model: "spam-standard", submissions: [] }],
    ["a field that is not a [name, value] pair", { model: "spam-standard", submissions: [[["message"]]] }],
  ])("answers bad_request to %s", async (_, body) => {
    await launch();
    const reply = await ask(client, body);
    expect(reply).toMatchObject({ ok: false, error: "bad_request" });
  });

  it("answers unknown_model to a request on its subject that names another model", async () => {
    await launch();
    const reply = await ask(client, { model: "spam-deluxe", submissions: [submission("hi")] });
    expect(reply).toMatchObject({ ok: false, error: "unknown_model" });
  });

  it("shares the queue group: each request is answered once, and both workers take some", async () => {
    const [a, b] = [await launch(), await launch()];
    const replies = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        ask(client, { model: "spam-standard", submissions: [submission(`message ${i}`)] }),
      ),
    );
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(a.worker.stats.handled + b.worker.stats.handled).toBe(80);
    expect(a.worker.stats.handled).toBeGreaterThan(0);
    expect(b.worker.stats.handled).toBeGreaterThan(0);
  });

  it("runs requests that arrive within the window as one batch", async () => {
    const running = await launch({ batchWindowMs: 20, batchMaxItems: 64 });
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ask(client, { model: "spam-standard", submissions: [submission(`batch ${i}`)] }),
      ),
    );
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(running.worker.stats.items).toBe(10);
    expect(running.worker.stats.batches).toBeLessThan(4);
  });

  it("finishes the requests it holds when stopped, and then takes no more", async () => {
    // A long window keeps the requests in flight inside the worker when stop() begins.
    const running = await launch({ batchWindowMs: 300, batchMaxItems: 1_000 });
    const pending = Array.from({ length: 20 }, (_, i) =>
      ask(client, { model: "spam-standard", submissions: [submission(`in flight ${i}`)] }),
    );
    await client.flush();
    await new Promise((r) => setTimeout(r, 50));
    expect(running.worker.ready()).toBe(true);
    const stopped = running.worker.stop();
    expect(running.worker.ready()).toBe(false);
    const replies = await Promise.all(pending);
    await stopped;
    expect(replies.every((r) => r.ok)).toBe(true);
    expect(running.worker.stats.handled).toBe(20);
    // Nobody subscribes any more: NATS answers "no responders" at once rather than timing out.
    await expect(
      client.request(inferenceSubject(SPAM_STANDARD), "{}", { timeout: 2_000 }),
    ).rejects.toMatchObject({
      code: "503",
    });
  });
});
