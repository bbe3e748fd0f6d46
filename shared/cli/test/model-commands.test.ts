import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAM_STANDARD } from "@sift/contracts";
import { AccountStore } from "@sift/console/accounts";
import { runCli, type CliDeps } from "../src/index.ts";
import { ReportStore } from "@sift/feedback";
import { AuditTrail, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { ModelVersions, ReportExamples, TrainingRequests } from "@sift/learning";
import { readModelMeta } from "@sift/model";
import { systemClock } from "@sift/runtime";
import {
  createKey,
  createPoster,
  post,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";
import { cliOperations } from "./operations.ts";

/**
 * Issue 53 on the real stack (gateway → classify → NATS → worker, the learner on BullMQ, a Redis
 * and a NATS of this file's own: a promoted model would change every other file's verdicts):
 * three sharing sites review a campaign through POST /feedback; `sift model train` trains a
 * candidate from their kept reviews; `sift model promote` puts it in service while a fresh site
 * classifies at 16 connections (no failed request); the fresh site's verdict on the campaign
 * changes; `sift model rollback` brings the shipped model back.
 */
let redis: TestServer;
let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker;
let cli: CliDeps;
const shipped = readModelMeta().version;

beforeAll(async () => {
  [redis, nats] = await Promise.all([startServer("redis"), startServer("nats")]);
  stack = await startStack({ redisUrl: redis.url, natsUrl: nats.url, learningMinAgeMs: 0 });
  worker = await startModelWorker(nats.url, undefined, { redisUrl: redis.url, modelPollMs: 200 });
  const examples = new ReportExamples({ redis: stack.redis });
  cli = {
    keystore: stack.keystore,
    operations: cliOperations(stack.redis),
    usage: new RedisUsageMeter({ redis: stack.redis, clock: systemClock }),
    notices: new NoticeStore({ redis: stack.redis }),
    reports: new ReportStore({ redis: stack.redis }),
    models: {
      examples,
      versions: new ModelVersions({ redis: stack.redis, model: SPAM_STANDARD }),
      requests: new TrainingRequests({ redis: stack.redis }),
      now: () => Date.now(),
    },
  };
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await stack?.stop();
  await Promise.all([redis?.stop(), nats?.stop()]);
});

/** A console session through the gateway (cookies and the CSRF token kept), for a user made here. */
const consoleAs = async (email: string, options: { operator?: boolean; roles?: Record<string, "owner"> }) => {
  const password = "correct horse battery staple";
  const accounts = new AccountStore({ redis: stack.redis, clock: systemClock });
  const user = await accounts.addUser({ email, password, operator: options.operator ?? false });
  for (const [workspaceId, role] of Object.entries(options.roles ?? {}))
    await accounts.setRole(workspaceId, user!.id, role);
  const cookies = new Map<string, string>();
  const request = async (path: string, form?: Record<string, string>) => {
    const res = await fetch(stack.gatewayUrl + path, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return { status: res.status, text: await res.text() };
  };
  const signIn = await request("/console/sign-in");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(signIn.text)![1]!;
  await request("/console/sign-in", { _csrf: csrf, email, password });
  return { get: (path: string) => request(path) };
};

const sift = async (...argv: string[]) => {
  const result = await runCli(argv, cli);
  return {
    ...result,
    json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : null,
  };
};
const site = async () => {
  const key = await createKey(stack.keystore, { kind: "classify" });
  await stack.keystore.updateWorkspace(key.workspaceId, { rateLimit: 100_000, burst: 100_000 });
  return key;
};
const auth = (secretKey: string) => ({ authorization: `Bearer ${secretKey}` });
const classify = async (secretKey: string, content: unknown) => {
  const reply = await post(
    `${stack.gatewayUrl}/classify`,
    { content, model: SPAM_STANDARD },
    auth(secretKey),
  );
  expect(reply.status).toBe(200);
  return reply.json as { label: string; score: number; model: string };
};
const until = async (check: () => Promise<boolean>, ms: number) => {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - start;
};

/**
 * A campaign the shipped model lets through (refund "agents" fishing on Telegram), worded by
 * each site's senders their own way: no two sites' reports are near-duplicates, so the shared
 * layer (which learns only what two sharing sites agree on) learns nothing of it and what moves
 * a fresh site is the deployment's model alone.
 */
const CITIES = ["Leeds", "Porto", "Lyon", "Graz", "Turin", "Cork", "Ghent", "Brno", "Split", "Bergen"];
const TEMPLATES = [
  (i: number) =>
    `Hello, my order ${4000 + i * 37} never came to ${CITIES[i % 10]}. Message my refund agent on telegram @refund_desk_${i % 7} today.`,
  (i: number) =>
    `Dear team, compensation for parcel ${7100 + i * 13} is ready, the telegram agent @claims_help_${i % 5} handles refund forms for ${CITIES[(i + 2) % 10]}.`,
  (i: number) =>
    `Refund notice ${i * 91}: contact agent on telegram @payout_team_${i % 9} now, your ${CITIES[(i + 5) % 10]} delivery compensation waits.`,
  (i: number) =>
    `Your refund for order ${i} is waiting, just write to our telegram agent @refund_center_${i % 3} to receive the compensation.`,
];
const campaign = (i: number, template = 0) => ({
  name: ["Linda", "Maria", "Tom", "Ana", "Jens"][i % 5]!,
  message: TEMPLATES[template]!(i),
});
const honest = (i: number) => ({
  name: ["Sam", "Priya", "Olek", "Mei", "Luis"][i % 5]!,
  message: `Hi, could you tell me whether the ${["walnut", "pine", "birch", "teak"][i % 4]} bookcase comes in ${120 + i} cm, and how long delivery to ${CITIES[(i + 3) % 10]} takes? Thanks.`,
});

describe("the deployment's own model", () => {
  it("is trained from sharing sites' reviews, promoted under load without a failed request, changes a fresh site's verdict and rolls back", async () => {
    const unseen = { name: "Karen", message: campaign(999, 3).message };
    const fresh = await site();
    const before = await classify(fresh.secretKey, unseen);
    expect(before.label).toBe("clean");
    expect((await sift("model", "status")).json).toMatchObject({ version: shipped, source: "shipped" });
    // Nothing to train on yet: a clear refusal, not a crash.
    expect((await sift("model", "train")).stderr).toMatch(/no kept reviews to train on/);

    const sharing = await Promise.all([site(), site(), site()]);
    const quiet = await site();
    for (const s of [...sharing, quiet]) if (s !== quiet) await cli.reports.setSharing(s.workspaceId, true);
    const reports: Array<Promise<unknown>> = [];
    sharing.forEach((s, k) => {
      for (let i = 0; i < 40; i++) {
        const n = k * 40 + i;
        reports.push(
          post(`${stack.gatewayUrl}/feedback`, { content: campaign(n, k), label: "spam" }, auth(s.secretKey)),
        );
        reports.push(
          post(`${stack.gatewayUrl}/feedback`, { content: honest(n), label: "clean" }, auth(s.secretKey)),
        );
      }
    });
    // A site that does not share: its reviews teach its own layer only, never the deployment.
    reports.push(
      post(`${stack.gatewayUrl}/feedback`, { content: honest(500), label: "spam" }, auth(quiet.secretKey)),
    );
    await Promise.all(reports);
    await until(async () => (await cli.models!.examples.stats()).kept === 240, 20_000);
    expect(await cli.models!.examples.countOf(quiet.workspaceId)).toBe(0);

    // What the shared layer and the fresh site's own state say is in place before the model moves.
    const beforeModel = await classify(fresh.secretKey, unseen);
    expect(beforeModel.label).toBe("clean");
    const trained = await sift("model", "train");
    expect(trained.stderr).toBe("");
    const version = trained.json!["version"] as string;
    expect(version).toBe(`${shipped}-d1`);
    expect(trained.json).toMatchObject({ reviews: expect.any(Number), sites: 3 });
    const comparison = trained.json!["comparison"] as {
      heldOut: { inService: { auc: number }; candidate: { auc: number } };
      canary: { inService: { auc: number }; candidate: { auc: number } } | null;
      wins: boolean;
    };
    expect(comparison.canary).not.toBeNull();
    // The shipped model already ranks these reviews well (1.5: 0.964); the candidate must not rank
    // them worse than the tolerance (AUC within 0.01) while it learns the campaign below.
    expect(comparison.heldOut.candidate.auc).toBeGreaterThanOrEqual(comparison.heldOut.inService.auc - 0.01);
    // Not in service until promoted.
    expect((await sift("model", "status")).json).toMatchObject({ source: "shipped", candidate: { version } });
    expect((await classify(fresh.secretKey, unseen)).label).toBe("clean");

    // A promotion under load: 16 connections classify while it happens; not one fails.
    const poster = createPoster(stack.gatewayUrl, { maxSockets: 16 });
    const body = JSON.stringify({ content: honest(7), model: SPAM_STANDARD });
    const statuses: number[] = [];
    let loading = true;
    const load = Promise.all(
      Array.from({ length: 16 }, async () => {
        while (loading) {
          const answer = await poster.post("/classify", body, {
            ...auth(fresh.secretKey),
            "content-type": "application/json",
          });
          statuses.push(answer.status);
        }
      }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const promoted = await sift(
      "model",
      "promote",
      "--version",
      version,
      ...(comparison.wins ? [] : ["--force"]),
    );
    expect(promoted.json).toEqual({ version, source: "deployment" });
    const switchedIn = await until(async () => worker.worker.version(SPAM_STANDARD) === version, 5_000);
    await new Promise((r) => setTimeout(r, 500));
    loading = false;
    await load;
    poster.close();
    expect(statuses.length).toBeGreaterThan(50);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(switchedIn).toBeLessThan(5_000);

    const after = await classify(fresh.secretKey, unseen);
    expect(after.model).toBe(SPAM_STANDARD);
    // 1.5 already scores the campaign 0.76 (1.4: lower); what must change is the verdict.
    expect(after.score).toBeGreaterThan(beforeModel.score + 0.1);
    expect(after.label).toBe("spam");
    expect((await sift("model", "status")).json).toMatchObject({
      version,
      source: "deployment",
      reviews: expect.any(Number),
      sites: 3,
    });

    // Operators see it in the console; a site's owner does not.
    const operator = await consoleAs(`operator-${process.pid}@example.com`, { operator: true });
    const page = await operator.get("/console/model");
    expect(page.status).toBe(200);
    expect(page.text).toContain(version);
    expect(page.text).toContain("this deployment&#39;s own");
    expect(page.text).toMatch(/on\s+\d+ reviews from\s+3\s+sites/);
    expect(page.text).toContain("held-out reviews");
    const owner = await consoleAs(`owner-${process.pid}@example.com`, {
      roles: { [fresh.workspaceId]: "owner" },
    });
    expect((await owner.get("/console/model")).status).toBe(403);

    const back = await sift("model", "rollback");
    expect(back.json).toEqual({ version: shipped, source: "shipped" });
    await until(async () => worker.worker.version(SPAM_STANDARD) === shipped, 5_000);
    expect((await classify(fresh.secretKey, unseen)).score).toBeCloseTo(beforeModel.score, 5);
    expect((await sift("model", "rollback")).stderr).toMatch(/nothing to roll back to/);
  });

  it("trains on a schedule only when enough new reviews were kept, and promotes only a winner", async () => {
    // The first test left a candidate trained on every review kept so far: nothing new since.
    const started = Date.now();
    const skipped = await sift("model", "train", "--min-new", "50", "--promote-if-wins");
    expect(skipped.json).toEqual({ trained: false, newReviews: 0, minNew: 50 });
    expect((await sift("model", "train", "--min-new", "-1")).code).toBe(2);
    const ran = await sift("model", "train", "--min-new", "0", "--promote-if-wins");
    const wins = (ran.json!["comparison"] as { wins: boolean }).wins;
    expect(ran.json!["promoted"]).toBe(wins);
    const status = (await sift("model", "status")).json!;
    expect(status["version"]).toBe(wins ? ran.json!["version"] : shipped);
    if (wins) await sift("model", "rollback");
    // One entry per change, by the operations' names: a run that trained nothing records nothing.
    const { data } = await new AuditTrail({ redis: stack.redis, clock: systemClock }).page({
      since: started,
      limit: 1000,
    });
    const entries = data.filter((e) => e.actor.type === "cli");
    expect(entries.map((e) => e.action)).toEqual(
      wins ? ["model.train", "model.promote", "model.rollback"] : ["model.train"],
    );
    expect(entries[0]).toMatchObject({
      target: ran.json!["version"],
      after: { version: ran.json!["version"], comparison: { wins } },
    });
  });

  it("keeps serving what it serves when the version put in service cannot be loaded", async () => {
    const versions = cli.models!.versions;
    const good = (await versions.candidate())!;
    const stored = (await versions.get(good))!;
    const meta = JSON.parse(stored.meta) as { featurizerVersion: number; version: string };
    const bad = `${shipped}-d99`;
    await versions.add(
      {
        onnx: stored.onnx,
        meta: JSON.stringify({ ...meta, version: bad, featurizerVersion: meta.featurizerVersion + 1 }),
        info: { ...stored.info, version: bad },
      },
      Date.now(),
    );
    expect(await versions.promote(bad)).toBe(true);
    // Several polls (every 200 ms): the worker logs the refusal and stays on the shipped model.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(worker.worker.version(SPAM_STANDARD)).toBe(shipped);
    const s = await site();
    expect((await classify(s.secretKey, honest(3))).model).toBe(SPAM_STANDARD);
    expect((await sift("model", "rollback")).json).toEqual({ version: shipped, source: "shipped" });
  });

  it("refuses to promote a version that is not stored, and forgets a site that stops sharing", async () => {
    expect((await sift("model", "promote", "--version", "1.4.0+nope-d9")).code).toBe(1);
    expect((await sift("model", "promote")).code).toBe(2);
    const s = await site();
    await cli.reports.setSharing(s.workspaceId, true);
    await post(`${stack.gatewayUrl}/feedback`, { content: campaign(1), label: "spam" }, auth(s.secretKey));
    await until(async () => (await cli.models!.examples.countOf(s.workspaceId)) === 1, 10_000);
    const off = await sift("workspace", "set", "--workspace", s.workspaceId, "--share-reports", "off");
    expect(off.code).toBe(0);
    expect(await cli.models!.examples.countOf(s.workspaceId)).toBe(0);
  });

  it("has /v1 twins for operator tokens: training asked through the API runs outside it, then promote and rollback", async () => {
    const v1 = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(`${stack.gatewayUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const operator = (await stack.tokens.create({ name: "model operator", scope: "operator" })).token;
    const fresh = await site();
    const workspace = (
      await stack.tokens.create({ name: "a site's", scope: "workspace", workspaceId: fresh.workspaceId })
    ).token;
    for (const [method, path] of [
      ["GET", "/v1/model"],
      ["POST", "/v1/model/candidates"],
      ["POST", "/v1/model/promote"],
      ["POST", "/v1/model/rollback"],
    ] as const)
      expect(await v1(method, path, workspace, method === "POST" ? { version: shipped } : undefined)).toEqual(
        {
          status: 403,
          body: { ok: false, message: "Only an operator token can do this", code: "forbidden" },
        },
      );

    const status = await v1("GET", "/v1/model", operator);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      model: SPAM_STANDARD,
      version: shipped,
      source: "shipped",
      training: null,
    });

    // Asked through the API: recorded and answered 202, trained by `sift model train --requested`.
    const asked = await v1("POST", "/v1/model/candidates", operator);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ state: "queued", startedAt: null, version: null });
    // One at a time: a second ask answers the pending request.
    expect((await v1("POST", "/v1/model/candidates", operator)).body["id"]).toBe(asked.body["id"]);
    expect((await v1("GET", "/v1/model", operator)).body["training"]).toMatchObject({
      id: asked.body["id"],
      state: "queued",
    });
    const ran = await sift("model", "train", "--requested");
    expect(ran.stderr).toBe("");
    expect(ran.json).toMatchObject({ trained: true, request: asked.body["id"], sites: 3 });
    const version = ran.json!["version"] as string;
    expect((await sift("model", "train", "--requested")).json).toEqual({ trained: false, request: null });
    const after = (await v1("GET", "/v1/model", operator)).body;
    expect(after["training"]).toMatchObject({ id: asked.body["id"], state: "done", version, error: null });
    const candidate = after["candidate"] as { version: string; wins: boolean };
    expect(candidate.version).toBe(version);
    // Operators see the request in the console too.
    const page = await (
      await consoleAs(`api-operator-${process.pid}@example.com`, { operator: true })
    ).get("/console/model");
    expect(page.text).toContain("Training asked through /v1");
    expect(page.text).toMatch(
      new RegExp(`done, asked [^<]+: <code>${version.replace(/[.+]/g, "\\$&")}</code>`),
    );

    // The caller's mistakes: clear answers in the /v1 shape.
    expect(await v1("POST", "/v1/model/promote", operator, { version: "1.4.0+nope-d9" })).toMatchObject({
      status: 404,
      body: { ok: false, code: "not_found" },
    });
    expect(await v1("POST", "/v1/model/promote", operator, { version: 5 })).toMatchObject({
      status: 400,
      body: { ok: false, code: "invalid", message: expect.stringContaining("version") },
    });
    expect((await v1("POST", "/v1/model/promote", operator, { version, extra: 1 })).status).toBe(400);
    if (!candidate.wins)
      expect(await v1("POST", "/v1/model/promote", operator, { version })).toMatchObject({
        status: 409,
        body: { ok: false, code: "conflict" },
      });

    // The previous test's site agreed with a first one on a campaign report: the shared layer
    // holds the campaign and the enquiries now, and its near-duplicates pin them near 1 and 0
    // under any model. Messages of the same kinds worded apart are what the promoted model moves,
    // and rollback restores.
    const probes = [
      { message: "Does the walnut bookcase ship flat-packed to Porto, and is assembly included?" },
      { message: "I still have no refund, who do I write to on telegram about order 5521?" },
      { message: "Agent on telegram will send compensation, write @refund_now quickly" },
    ];
    const scores = async () =>
      Promise.all(probes.map(async (p) => (await classify(fresh.secretKey, p)).score));
    const shippedScores = await scores();
    const promoted = await v1("POST", "/v1/model/promote", operator, { version, force: !candidate.wins });
    expect(promoted).toEqual({ status: 200, body: { version, source: "deployment" } });
    await until(async () => worker.worker.version(SPAM_STANDARD) === version, 5_000);
    const promotedScores = await scores();
    expect(Math.max(...promotedScores.map((x, i) => Math.abs(x - shippedScores[i]!)))).toBeGreaterThan(0.01);
    expect((await v1("GET", "/v1/model", operator)).body).toMatchObject({
      version,
      source: "deployment",
      sites: 3,
    });

    expect(await v1("POST", "/v1/model/rollback", operator)).toEqual({
      status: 200,
      body: { version: shipped, source: "shipped" },
    });
    await until(async () => worker.worker.version(SPAM_STANDARD) === shipped, 5_000);
    (await scores()).forEach((x, i) => expect(x).toBeCloseTo(shippedScores[i]!, 5));
    expect(await v1("POST", "/v1/model/rollback", operator)).toMatchObject({
      status: 409,
      body: { ok: false, code: "conflict", message: expect.stringMatching(/nothing to roll back/i) },
    });
  });
});
