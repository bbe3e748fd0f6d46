import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { solveFromService } from "@sift/challenge";
import { createKey, startStack, type Stack } from "@sift/testkit";
import {
  SiftClient,
  SiftError,
  SPEC_OUTAGE_POLICY,
  STRICT_OUTAGE_POLICY,
  type OutagePolicy,
} from "../src/index.js";
import { startRecorder, type TestHttpServer } from "./servers.js";

/**
 * verify() against the real gateway, verify service and Redis, with real solutions solved the
 * way the browser script solves them. Requests go through a recording proxy so the tests see
 * what the client sent, and whether it sent anything.
 */
let stack: Stack;
let recorder: TestHttpServer;
let key: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
  recorder = await startRecorder(stack.gatewayUrl);
  key = await createKey(stack.keystore, { kind: "challenge" });
});
afterAll(async () => {
  await recorder?.stop();
  await stack?.stop();
});

const client = (challengeKey = key.secretKey, policy: OutagePolicy = SPEC_OUTAGE_POLICY) =>
  new SiftClient({ baseUrl: recorder.url, challengeKey, policy });

const solve = async () =>
  (await solveFromService({ siteKey: key.siteKey!, baseUrl: stack.gatewayUrl })).solution;

describe("verify() with a real key and real solutions", () => {
  it("accepts a fresh solution once, then rejects it as Spent challenge", async () => {
    const solution = await solve();
    const sift = client();
    expect(await sift.verify(solution)).toEqual({
      decidedBy: "service",
      accepted: true,
      response: { ok: true },
    });
    expect(await sift.verify(solution)).toEqual({
      decidedBy: "service",
      accepted: false,
      response: { ok: false, message: VerifyMessage.spent },
    });
  });

  it("sends the solution as JSON with the key as a bearer token", async () => {
    const solution = await solve();
    const from = recorder.seen.length;
    await client().verify(solution);
    const [sent] = recorder.seen.slice(from);
    expect(sent).toMatchObject({ method: "POST", path: "/verify", status: 200 });
    expect(sent!.headers["authorization"]).toBe(`Bearer ${key.secretKey}`);
    expect(JSON.parse(sent!.body)).toEqual({ solution });
  });

  it("rejects with Invalid secret key for an unknown key and for a Classify key", async () => {
    const classifyKey = await createKey(stack.keystore, { kind: "classify" });
    for (const secret of ["sk_unknown", classifyKey.secretKey]) {
      expect(await client(secret).verify(await solve())).toEqual({
        decidedBy: "service",
        accepted: false,
        response: { ok: false, message: VerifyMessage.invalidKey },
      });
    }
  });

  it("rejects a solution that is not one (Invalid solution length)", async () => {
    expect(await client().verify("nok")).toMatchObject({
      accepted: false,
      response: { ok: false, message: VerifyMessage.invalidSolutionLength },
    });
  });
});

describe("verify() with a body over 1 MB", () => {
  it("throws the spec's plain-text 413 Payload Too Large rather than deciding", async () => {
    const error = await client()
      .verify("x".repeat(1024 * 1024 + 1))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SiftError);
    expect(error).toMatchObject({ kind: "http", status: 413, message: "Payload Too Large", attempts: 1 });
  });
});

describe("verify() with the test key", () => {
  it("accepts the solution ok and rejects any other, both with the message Test key", async () => {
    const sift = client("test");
    expect(await sift.verify("ok")).toEqual({
      decidedBy: "service",
      accepted: true,
      response: { ok: true, message: VerifyMessage.testKey },
    });
    expect(await sift.verify("nok")).toEqual({
      decidedBy: "service",
      accepted: false,
      response: { ok: false, message: VerifyMessage.testKey },
    });
  });
});

describe("verify() without a solution", () => {
  it("never accepts a missing or empty _vendor, and sends nothing", async () => {
    const from = recorder.seen.length;
    for (const vendor of [undefined, null, "", ["a", "b"], 42]) {
      expect(await client("test").verify(vendor)).toEqual({
        decidedBy: "client",
        accepted: false,
        cause: "missing-solution",
      });
    }
    expect(recorder.seen.length).toBe(from);
  });

  it("never accepts a missing _vendor even while the service is unreachable", async () => {
    await stack.stopService("gateway");
    try {
      const direct = new SiftClient({ baseUrl: stack.gatewayUrl, challengeKey: key.secretKey });
      // The same outage accepts a submission that has a solution (spec 7.2)...
      expect(await direct.verify("some.solution.sent.by.a.form")).toMatchObject({
        decidedBy: "policy",
        accepted: true,
        cause: "network-failure",
      });
      // ...but never one without.
      expect(await direct.verify(undefined)).toMatchObject({ accepted: false, cause: "missing-solution" });
      expect(await direct.verify("")).toMatchObject({ accepted: false, cause: "missing-solution" });
    } finally {
      await stack.startService("gateway");
    }
  });
});

describe("verify() during outages", () => {
  it("accepts on a network failure, without retrying, by the spec's policy; the strict policy rejects", async () => {
    const solution = await solve();
    await stack.stopService("gateway");
    try {
      const direct = (policy: OutagePolicy) =>
        new SiftClient({ baseUrl: stack.gatewayUrl, challengeKey: key.secretKey, policy });
      const outcome = await direct(SPEC_OUTAGE_POLICY).verify(solution);
      expect(outcome).toMatchObject({
        decidedBy: "policy",
        accepted: true,
        cause: "network-failure",
        attempts: 1,
      });
      expect(await direct(STRICT_OUTAGE_POLICY).verify(solution)).toMatchObject({
        decidedBy: "policy",
        accepted: false,
        cause: "network-failure",
      });
    } finally {
      await stack.startService("gateway");
    }
    // The service never saw the solution: it still verifies once the service is back.
    expect(await client().verify(solution)).toMatchObject({ decidedBy: "service", accepted: true });
  });

  it("retries Internal server error while the verify service is down, then accepts by the policy", async () => {
    const solution = await solve();
    await stack.stopService("verify");
    try {
      const from = recorder.seen.length;
      expect(await client().verify(solution)).toEqual({
        decidedBy: "policy",
        accepted: true,
        cause: "internal-error",
        response: { ok: false, message: VerifyMessage.internal },
        attempts: 3,
      });
      // The gateway answers for the missing service: 200 with Internal server error (spec 7.2).
      expect(recorder.seen.slice(from).map((s) => [s.status, JSON.parse(s.body)])).toEqual(
        Array(3).fill([200, { solution }]),
      );
      expect(await client(key.secretKey, STRICT_OUTAGE_POLICY).verify(solution)).toMatchObject({
        accepted: false,
        cause: "internal-error",
      });
    } finally {
      await stack.startService("verify");
    }
  });
});
