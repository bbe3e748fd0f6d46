import { afterEach, describe, expect, it } from "vitest";
import { ClassifyMessage, VerifyMessage } from "@sift/contracts";
import { SiftClient, SiftError, SPEC_OUTAGE_POLICY } from "../src/index.js";
import { json, stall, startScriptedServer, type TestHttpServer } from "./servers.js";

/**
 * Answers a healthy Sift never gives (stalls, garbage, proxies' pages) and exact sequences of
 * refusals, from a real local HTTP server that misbehaves on purpose.
 */
let server: TestHttpServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const start = async (...handlers: Parameters<typeof startScriptedServer>) => {
  server = await startScriptedServer(...handlers);
  return server;
};
const client = (url: string, options: Partial<ConstructorParameters<typeof SiftClient>[0]> = {}) =>
  new SiftClient({ baseUrl: url, classifyKey: "ck", challengeKey: "vk", ...options });

const VERDICT = { label: "clean", score: 0.1, model: "spam-standard" };

describe("time-outs", () => {
  it("classify() throws a timeout SiftError after timeoutMs, without retrying", async () => {
    const { url, seen } = await start(stall);
    const started = Date.now();
    // A second, not less: on a loaded machine the request must reach the server before it ends.
    const error = await client(url, { timeoutMs: 1_000 })
      .classify("hi")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiftError);
    expect(error).toMatchObject({ kind: "timeout", attempts: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(seen).toHaveLength(1);
  });

  it("times out a service that sends its headers and then stalls the body", async () => {
    const { url } = await start(
      (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).write("{"),
    );
    await expect(client(url, { timeoutMs: 200 }).classify("hi")).rejects.toMatchObject({ kind: "timeout" });
  });

  it("verify() accepts on a time-out by the spec's policy, and rejects when the policy says so", async () => {
    const { url, seen } = await start(stall);
    expect(await client(url, { timeoutMs: 200 }).verify("a.b.c.d")).toEqual({
      decidedBy: "policy",
      accepted: true,
      cause: "timeout",
      attempts: 1,
    });
    const noTimeouts = {
      ...SPEC_OUTAGE_POLICY,
      verify: { ...SPEC_OUTAGE_POLICY.verify, acceptOnTimeout: false },
    };
    expect(await client(url, { timeoutMs: 200, policy: noTimeouts }).verify("a.b.c.d")).toMatchObject({
      accepted: false,
      cause: "timeout",
    });
    expect(seen).toHaveLength(2);
  });

  it("throws the caller's own abort as is: an abort is not an outage, so verify() does not accept", async () => {
    const { url } = await start(stall);
    const reason = new Error("visitor went away");
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 100);
    await expect(client(url).verify("a.b.c.d", { signal: controller.signal })).rejects.toBe(reason);
  });
});

describe("retries", () => {
  it("waits at least Retry-After seconds after a 429, then returns the verdict", async () => {
    const limited = { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" };
    const { url, seen } = await start(json(429, limited, { "retry-after": "2" }), json(200, VERDICT));
    expect(await client(url).classify("hi")).toEqual({ decidedBy: "service", ...VERDICT });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(2_000);
  });

  it("does not retry a 429 whose Retry-After is past the cap, and reports the wait", async () => {
    const limited = { ok: false, message: ClassifyMessage.rateLimited, code: "rate_limited" };
    const { url, seen } = await start(json(429, limited, { "retry-after": "60" }));
    const error = await client(url, { retry: { maxDelayMs: 10_000 } })
      .classify("hi")
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      kind: "http",
      status: 429,
      code: "rate_limited",
      retryAfterSeconds: 60,
      attempts: 1,
    });
    expect(seen).toHaveLength(1);
  });

  it("backs off exponentially on 503: the second wait is longer than the first could be", async () => {
    const unavailable = json(503, { ok: false, message: ClassifyMessage.unavailable });
    const { url, seen } = await start(unavailable, unavailable, json(200, VERDICT));
    const sift = client(url, { retry: { retries: 2, baseDelayMs: 200 } });
    expect(await sift.classify("hi")).toMatchObject({ decidedBy: "service" });
    const [first, second, third] = seen.map((s) => s.at) as [number, number, number];
    // Waits are 100-200 ms, then 200-400 ms (half fixed, half jitter).
    expect(second - first).toBeGreaterThanOrEqual(100);
    expect(third - second).toBeGreaterThanOrEqual(200);
  });

  it("retries verify's Internal server error and takes the answer that follows", async () => {
    const internal = json(200, { ok: false, message: VerifyMessage.internal });
    const { url, seen } = await start(
      internal,
      json(200, { ok: false, message: VerifyMessage.invalidSignature }),
    );
    expect(await client(url).verify("a.b.c.d")).toEqual({
      decidedBy: "service",
      accepted: false,
      response: { ok: false, message: VerifyMessage.invalidSignature },
    });
    expect(seen).toHaveLength(2);
  });

  it("decides Spent challenge after Internal server error as that error, the spend being most likely its own", async () => {
    const internal = json(200, { ok: false, message: VerifyMessage.internal });
    const { url, seen } = await start(internal, json(200, { ok: false, message: VerifyMessage.spent }));
    expect(await client(url).verify("a.b.c.d")).toEqual({
      decidedBy: "policy",
      accepted: true,
      cause: "internal-error",
      response: { ok: false, message: VerifyMessage.internal },
      attempts: 2,
    });
    expect(seen).toHaveLength(2);
  });
});

describe("answers the spec does not describe", () => {
  it("throws unexpected-response for a proxy's page, and for a 200 that is not the documented object", async () => {
    const { url } = await start(
      (_req, res) => void res.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad Gateway</h1>"),
      json(200, { verdict: "fine" }),
    );
    await expect(client(url).verify("a.b.c.d")).rejects.toMatchObject({
      kind: "unexpected-response",
      status: 502,
    });
    await expect(client(url).classify("hi")).rejects.toMatchObject({
      kind: "unexpected-response",
      status: 200,
    });
    await expect(client(url).verify("a.b.c.d")).rejects.toMatchObject({
      kind: "unexpected-response",
      status: 200,
    });
  });

  it("refuses to call without the key the operation needs", async () => {
    const sift = new SiftClient({ baseUrl: "http://127.0.0.1:9" });
    await expect(sift.classify("hi")).rejects.toThrow(/classifyKey/);
    await expect(sift.verify("a.b.c.d")).rejects.toThrow(/challengeKey/);
  });
});

describe("feedback()", () => {
  it("posts {content, label} with the Classify key to /feedback and returns {ok: true}", async () => {
    const { url, seen } = await start(json(200, { ok: true }));
    const content = { name: "Ann", message: "Is the shop open on Sunday?" };
    expect(await client(`${url}/`).feedback(content, "clean")).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    const [sent] = seen;
    expect(sent).toMatchObject({ method: "POST", path: "/feedback" });
    expect(sent!.headers).toMatchObject({ authorization: "Bearer ck", "content-type": "application/json" });
    expect(JSON.parse(sent!.body)).toEqual({ content, label: "clean" });
  });

  it("throws a SiftError where the service does not serve /feedback yet", async () => {
    const { url } = await start(
      (_req, res) => void res.writeHead(404, { "content-type": "text/html" }).end("Not Found"),
    );
    await expect(client(url).feedback("hi", "spam")).rejects.toMatchObject({
      kind: "unexpected-response",
      status: 404,
    });
  });
});
