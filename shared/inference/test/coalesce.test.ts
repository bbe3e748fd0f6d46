import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  inferenceSubject,
  InferenceRequest,
  REQUEST_ID_HEADER,
  SPAM_STANDARD,
  type NormalizedField,
} from "@sift/contracts";
import { startModelWorker, startServer, type RunningModelWorker, type TestServer } from "@sift/testkit";
import { NatsInferenceClient, type InferenceResult } from "../src/index.ts";

/**
 * NATS request coalescing in the inference client (the classify service's), against a real worker on a NATS of its own:
 * submissions made together travel in one request, each gets its own verdict (the one it gets
 * alone), and submissions of different workspaces or explain flags never share a request.
 */
let server: TestServer;
let worker: RunningModelWorker;
let nats: NatsConnection;
let requests: InferenceRequest[] = [];
/** Each request's request ids, as its NATS header carries them. */
const requestIds: string[][] = [];

beforeAll(async () => {
  server = await startServer("nats");
  worker = await startModelWorker(server.url);
  nats = await connect({ servers: server.url.replace(/^nats:\/\//, "") });
  // A plain subscriber (outside the workers' queue group) sees every request the client sends.
  nats.subscribe(inferenceSubject(SPAM_STANDARD), {
    callback: (_err, msg) => {
      requests.push(InferenceRequest.parse(JSON.parse(new TextDecoder().decode(msg.data))));
      requestIds.push(msg.headers?.values(REQUEST_ID_HEADER) ?? []);
    },
  });
  await nats.flush();
});
afterAll(async () => {
  await nats?.close();
  await worker?.stop();
  await server?.stop();
});

const SUBMISSIONS: NormalizedField[][] = [
  [["message", "Hello, is the blue armchair still for sale? I could pick it up on Saturday."]],
  [["message", "URGENT! You have won a £1000 cash prize. To claim call 09061701461 now."]],
  [
    ["name", "Best SEO"],
    ["message", "Buy cheap backlinks and rank #1 on Google in 7 days: http://cheap-seo.example.xyz/offer"],
  ],
  [["message", "Could you send me the invoice for last month's order again? Thanks, Ana"]],
];

const client = (coalesce: boolean) => new NatsInferenceClient({ nats, timeoutMs: 5_000, coalesce });
const settle = () => new Promise((r) => setTimeout(r, 50));

describe("coalescing inference requests", () => {
  it("sends submissions made together in one request and gives each its own verdict", async () => {
    const alone: InferenceResult[] = [];
    for (const fields of SUBMISSIONS) alone.push(await client(false).score(SPAM_STANDARD, fields, "r"));
    await settle();
    requests = [];
    const together = await Promise.all(
      SUBMISSIONS.map((fields, i) =>
        client(true).score(SPAM_STANDARD, fields, `r${i}`, { workspaceId: "ws_a" }),
      ),
    );
    await settle();
    // Four clients: each coalesces its own. One client, four submissions:
    requests = [];
    const shared = client(true);
    const results = await Promise.all(
      SUBMISSIONS.map((fields, i) => shared.score(SPAM_STANDARD, fields, `r${i}`, { workspaceId: "ws_a" })),
    );
    await settle();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.submissions).toEqual(SUBMISSIONS);
    expect(requests[0]!.workspaceId).toBe("ws_a");
    // One header value per submission, in the order of the submissions.
    expect(requestIds.at(-1)).toEqual(SUBMISSIONS.map((_, i) => `r${i}`));
    // The same verdicts, to float32 rounding (onnxruntime's batched kernels sum in another order).
    const scores = (rs: typeof alone) => rs.map((r) => (r.ok ? r.score : NaN));
    for (const got of [results, together]) {
      expect(got.map((r) => r.ok)).toEqual(alone.map(() => true));
      scores(got).forEach((score, i) => expect(score).toBeCloseTo(scores(alone)[i]!, 5));
    }
    // The spam and the clean ones are told apart, so a mix-up would show.
    expect(new Set(results.map((r) => r.ok && r.score >= 0.8)).size).toBe(2);
  });

  it("keeps workspaces and explain requests in requests of their own", async () => {
    requests = [];
    const shared = client(true);
    const [a, b, explained] = await Promise.all([
      shared.score(SPAM_STANDARD, SUBMISSIONS[0]!, "r1", { workspaceId: "ws_a" }),
      shared.score(SPAM_STANDARD, SUBMISSIONS[1]!, "r2", { workspaceId: "ws_b" }),
      shared.score(SPAM_STANDARD, SUBMISSIONS[2]!, "r3", { workspaceId: "ws_a", explain: true }),
    ]);
    await settle();
    expect(requests.map((r) => [r.workspaceId, r.explain ?? false, r.submissions.length]).sort()).toEqual([
      ["ws_a", false, 1],
      ["ws_a", true, 1],
      ["ws_b", false, 1],
    ]);
    expect([a.ok, b.ok, explained.ok]).toEqual([true, true, true]);
    expect(explained.ok && explained.reasons!.length).toBeGreaterThan(0);
    expect(a.ok && a.reasons).toBeUndefined();
  });

  it("fails every submission of a request alike when no worker answers", async () => {
    const empty = await startServer("nats");
    const lonely = await connect({ servers: empty.url.replace(/^nats:\/\//, "") });
    try {
      const inference = new NatsInferenceClient({ nats: lonely, timeoutMs: 1_000, coalesce: true });
      const results = await Promise.all(
        SUBMISSIONS.map((fields) => inference.score(SPAM_STANDARD, fields, "r")),
      );
      expect(results).toEqual(SUBMISSIONS.map(() => ({ ok: false, reason: "no_worker" })));
    } finally {
      await lonely.close();
      await empty.stop();
    }
  });
});
