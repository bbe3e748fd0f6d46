import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { AccountStore } from "@sift/console/accounts";
import { BULL_PREFIX } from "@sift/contracts";
import { FeedbackStore } from "@sift/feedback";
import { NoticeStore } from "@sift/keystore";
import { ReviewExamples } from "@sift/learning";
import { operationDeps } from "@sift/operations";
import { closeServer, createJobsRedis, listen, silentLogger, type RedisClient } from "@sift/runtime";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { createWebhookQueue, WebhookStore } from "@sift/webhooks";
import type { Queue } from "bullmq";
import { runCli } from "../src/run.ts";

/**
 * One operation per change (DESIGN; issue 58): each change below is made through /v1 (real
 * HTTP, an operator token), the console (real HTTP, an operator's session, its forms) and the
 * CLI (runCli as main.ts wires it, its webhooks queued on the jobs Redis), each on a workspace
 * of its own, on one real stack with webhook delivery to a real local receiver. The three must
 * leave the same state, the same audit entries (action names and what they record) and deliver
 * the same webhooks.
 */
let nats: TestServer;
let stack: Stack;
let jobsRedis: RedisClient;
let cliQueue: Queue;
let receiver: Server;
let receiverUrl: string;
let token: string;
let browser: Session;
let feedback: FeedbackStore;
let examples: ReviewExamples;
let cli: (...argv: string[]) => ReturnType<typeof runCli>;
const received: Array<{ type: string; data: Record<string, unknown> }> = [];

/** A cookie-keeping console client through the gateway, reading each page's CSRF token. */
class Session {
  cookies = new Map<string, string>();
  csrf = "";
  constructor(readonly base: string) {}
  async request(path: string, fields?: Record<string, string>) {
    const res = await fetch(this.base + path, {
      method: fields ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(fields ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(fields ? { body: new URLSearchParams({ _csrf: this.csrf, ...fields }).toString() } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const text = await res.text();
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? this.csrf;
    return { status: res.status, location: res.headers.get("location"), text };
  }
  /** A form as a browser sends it: the page first (its CSRF token), then the POST. */
  async submit(page: string, action: string, fields: Record<string, string>) {
    await this.request(page);
    const res = await this.request(action, fields);
    expect(res.status, `${action}: ${res.text.slice(0, 300)}`).toBe(303);
    return res.location ? this.request(res.location) : res;
  }
}

beforeAll(async () => {
  nats = await startServer("nats");
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const event = JSON.parse(Buffer.concat(chunks).toString()) as (typeof received)[number];
      received.push({ type: event.type, data: event.data });
      res.writeHead(204).end();
    });
  });
  receiverUrl = `http://127.0.0.1:${await listen(receiver, 0, "127.0.0.1")}/hooks`;
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: nats.url,
    management: { webhooks: true, allowPrivateWebhooks: true },
  });
  token = (await stack.tokens.create({ name: "doors", scope: "operator" })).token;
  feedback = new FeedbackStore({ redis: stack.redis });
  examples = new ReviewExamples({ redis: stack.redis });
  // The stack's BullMQ jobs live in database 1 (stack.ts): the CLI queues its webhooks there.
  jobsRedis = createJobsRedis({ url: `${inject("redisUrl")}/1` }, "doors-cli-jobs");
  cliQueue = createWebhookQueue({ connection: jobsRedis, prefix: BULL_PREFIX });
  const deps = {
    keystore: stack.keystore,
    operations: operationDeps({
      redis: stack.redis,
      clock: stack.clock,
      logger: silentLogger(),
      webhooks: new WebhookStore({ redis: stack.redis, clock: stack.clock, queue: cliQueue }),
    }),
    usage: stack.usage,
    notices: new NoticeStore({ redis: stack.redis }),
    feedback,
    audit: { trail: stack.audit, actorId: "ann@ops-1" },
  };
  cli = (...argv) => runCli(argv, deps);
  const email = `doors-${process.pid}@example.com`;
  await new AccountStore({ redis: stack.redis, clock: stack.clock }).addUser({
    email,
    password: "correct horse battery staple",
    operator: true,
  });
  browser = new Session(stack.gatewayUrl);
  await browser.request("/console/sign-in");
  const signedIn = await browser.request("/console/sign-in", {
    email,
    password: "correct horse battery staple",
  });
  expect(signedIn.status).toBe(303);
}, 60_000);
afterAll(async () => {
  await cliQueue?.close();
  jobsRedis?.disconnect();
  await stack?.stop();
  await closeServer(receiver);
  await nats?.stop();
});

type Door = "v1" | "console" | "cli";
const DOORS: Door[] = ["v1", "console", "cli"];

/** A workspace made for one case and door (by the key store: no door's audit entry or event). */
interface Site {
  workspaceId: string;
  configId: string;
  secretKey: string;
}

const v1 = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer;
};

const sift = async (...argv: string[]) => {
  const result = await cli(...argv);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
};

interface Case {
  change: string;
  setup?(site: Site): Promise<void>;
  /** Runs the change through each door; returns the new secret where the change makes one. */
  doors: Record<Door, (site: Site) => Promise<string | void>>;
  /** What the change leaves, with nothing that differs between two workspaces (ids, times). */
  state(site: Site, secret: string | void): Promise<unknown>;
  /** The audit entries' fields that must match (besides the action), per entry. */
  audited(entry: { before?: unknown; after?: unknown }): unknown;
  /** The webhooks this change must deliver (at least one door's run shows each). */
  events: string[];
}

const settingsPage = (s: Site) => `/console/w/${s.workspaceId}/settings`;
/** The settings form as a browser sends it: every field, the changed ones as given. */
const settingsForm = async (s: Site, changes: Record<string, string>) => {
  const view = await v1("GET", `/v1/workspaces/${s.workspaceId}`);
  return {
    strictness: String(view["strictness"]),
    shareReports: view["shareReports"] ? "on" : "off",
    network: view["network"] ? "on" : "off",
    languages: (view["languages"] as string[]).join(", "),
    ...changes,
  };
};
const settings = async (s: Site) => ({
  ...(await feedback.settings(s.workspaceId)),
  network: (await stack.keystore.getWorkspace(s.workspaceId))?.network !== false,
  kept: await examples.countOf(s.workspaceId),
});
const viewOf = (value: unknown) => {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = (value ?? {}) as Record<string, unknown>;
  return rest;
};

const CASES: Case[] = [
  {
    change: "rotate a secret with a grace",
    doors: {
      v1: async (s) =>
        (await v1("POST", `/v1/configurations/${s.configId}/rotate-secret`, { graceSeconds: 3600 }))[
          "secretKey"
        ] as string,
      console: async (s) => {
        const base = `/console/w/${s.workspaceId}/sites/${s.configId}`;
        const page = await browser.submit(base, `${base}/reroll`, { grace: "3600", confirm: "yes" });
        expect(page.text).toContain("keeps working until");
        return /id="secret">(sk_[\w-]+)</.exec(page.text)?.[1];
      },
      cli: async (s) =>
        (await sift("config", "rotate", "--config", s.configId, "--grace-seconds", "3600"))[
          "secretKey"
        ] as string,
    },
    state: async (s, secret) => ({
      oldWorks: (await stack.keystore.resolve(s.secretKey)) !== null,
      newWorks: typeof secret === "string" && (await stack.keystore.resolve(secret)) !== null,
    }),
    audited: (e) => ({ graceSeconds: (e.after as { graceSeconds?: number }).graceSeconds }),
    events: ["secret.rotated"],
  },
  {
    change: "lower the allowance under the usage",
    // 9 calls counted of a Free allowance of 1,000: an allowance of 9 is 100 % at once.
    setup: async (s) => {
      const workspace = (await stack.keystore.getWorkspace(s.workspaceId))!;
      for (let i = 0; i < 9; i++) await stack.usage.admit(workspace);
    },
    doors: {
      v1: async (s) => void (await v1("PATCH", `/v1/workspaces/${s.workspaceId}`, { allowance: 9 })),
      console: async (s) => {
        const w = (await stack.keystore.getWorkspace(s.workspaceId))!;
        const page = `/console/w/${s.workspaceId}/usage`;
        await browser.submit(page, page, {
          plan: w.plan,
          allowance: "9",
          rateLimit: String(w.rateLimit),
          burst: String(w.burst),
          classify: "on",
        });
      },
      cli: async (s) =>
        void (await sift("workspace", "set", "--workspace", s.workspaceId, "--allowance", "9")),
    },
    state: async (s) => {
      const w = (await stack.keystore.getWorkspace(s.workspaceId))!;
      const status = await stack.usage.status(w);
      return { allowance: w.allowance, state: status.state, used30d: status.used30d };
    },
    audited: (e) => ({ before: viewOf(e.before), after: viewOf(e.after) }),
    events: ["usage.threshold", "usage.threshold", "workspace.state"],
  },
  {
    change: "turn report sharing off",
    setup: async (s) => {
      await feedback.setSharing(s.workspaceId, true);
      await examples.keep(s.workspaceId, {
        label: 1,
        featurizerVersion: 1,
        reviewedAt: Date.now(),
        ids: Int32Array.from([7]),
        vals: Float32Array.from([1]),
      });
    },
    doors: {
      v1: async (s) => void (await v1("PATCH", `/v1/workspaces/${s.workspaceId}`, { shareReports: false })),
      console: async (s) =>
        void (await browser.submit(
          settingsPage(s),
          settingsPage(s),
          await settingsForm(s, { shareReports: "off" }),
        )),
      cli: async (s) =>
        void (await sift("workspace", "set", "--workspace", s.workspaceId, "--share-reports", "off")),
    },
    state: settings,
    audited: (e) => ({ before: viewOf(e.before), after: viewOf(e.after) }),
    events: [],
  },
  {
    change: "set strictness, the network and languages",
    doors: {
      v1: async (s) =>
        void (await v1("PATCH", `/v1/workspaces/${s.workspaceId}`, {
          strictness: "strict",
          network: false,
          languages: ["es", "en"],
        })),
      console: async (s) =>
        void (await browser.submit(
          settingsPage(s),
          settingsPage(s),
          await settingsForm(s, { strictness: "strict", network: "off", languages: "es, en" }),
        )),
      cli: async (s) =>
        void (await sift(
          "workspace",
          "set",
          "--workspace",
          s.workspaceId,
          "--strictness",
          "strict",
          "--network",
          "off",
          "--languages",
          "es,en",
        )),
    },
    state: async (s) => ({
      ...(await settings(s)),
      keyRecordNetwork: (await stack.keystore.resolve(s.secretKey))?.network.on,
    }),
    audited: (e) => ({ before: viewOf(e.before), after: viewOf(e.after) }),
    events: [],
  },
  {
    change: "create a challenge configuration",
    doors: {
      v1: async (s) =>
        (await v1("POST", `/v1/workspaces/${s.workspaceId}/configurations`, { kind: "challenge" }))[
          "secretKey"
        ] as string,
      console: async (s) => {
        const page = `/console/w/${s.workspaceId}/sites`;
        const shown = await browser.submit(page, page, { kind: "challenge", name: "" });
        return /id="secret">(sk_[\w-]+)</.exec(shown.text)?.[1];
      },
      cli: async (s) =>
        (await sift("config", "create", "--workspace", s.workspaceId, "--kind", "challenge"))[
          "secretKey"
        ] as string,
    },
    state: async (s, secret) => {
      const ids = await stack.keystore.configIdsOf(s.workspaceId);
      const resolved = typeof secret === "string" ? await stack.keystore.resolve(secret) : null;
      return { configurations: ids.length, newKind: resolved?.kind };
    },
    audited: (e) => {
      const {
        id: _id,
        workspaceId: _w,
        siteKey,
        createdAt: _c,
        updatedAt: _u,
        ...rest
      } = e.after as Record<string, unknown>;
      return { ...rest, siteKey: typeof siteKey };
    },
    events: [],
  },
  {
    change: "set a challenge configuration's hostnames",
    doors: {
      v1: async (s) =>
        void (await v1("PATCH", `/v1/configurations/${s.configId}`, {
          hostnames: ["shop.example", "*.shop.example"],
        })),
      console: async (s) => {
        const page = `/console/w/${s.workspaceId}/sites/${s.configId}`;
        await browser.submit(page, `${page}/hostnames`, { hostnames: "shop.example\n*.shop.example" });
      },
      cli: async (s) =>
        void (await sift(
          "config",
          "set",
          "--config",
          s.configId,
          "--hostnames",
          "shop.example,*.shop.example",
        )),
    },
    state: async (s) => ({ hostnames: (await stack.keystore.getConfig(s.configId))?.hostnames }),
    audited: (e) => {
      const shape = (v: unknown) => {
        const {
          id: _id,
          workspaceId: _w,
          siteKey: _k,
          createdAt: _c,
          updatedAt: _u,
          ...rest
        } = v as Record<string, unknown>;
        return rest;
      };
      return { before: shape(e.before), after: shape(e.after) };
    },
    events: [],
  },
];

/** Each case's sites by door, made and changed in beforeAll-free sequence so webhooks can settle. */
const runs = new Map<string, Record<Door, { site: Site; secret: string | void }>>();

const newSite = async (): Promise<Site> => {
  const workspace = await stack.keystore.createWorkspace({ name: "door site", plan: "free" });
  const created = await stack.keystore.createConfig(workspace.id, "challenge");
  await v1("POST", "/v1/webhooks", {
    url: receiverUrl,
    events: ["secret.rotated", "usage.threshold", "workspace.state"],
    workspaceId: workspace.id,
  });
  return { workspaceId: workspace.id, configId: created!.config.id, secretKey: created!.secretKey };
};

const CHANGES = ["workspace.", "configuration."];

describe("one operation per change, through /v1, the console and the CLI", () => {
  beforeAll(async () => {
    for (const c of CASES) {
      const byDoor = {} as Record<Door, { site: Site; secret: string | void }>;
      for (const door of DOORS) {
        const site = await newSite();
        await c.setup?.(site);
        byDoor[door] = { site, secret: await c.doors[door](site) };
      }
      runs.set(c.change, byDoor);
    }
    // Deliveries are jobs: wait for every expected one, then a little longer for any extra.
    const expected = CASES.reduce((n, c) => n + c.events.length * DOORS.length, 0);
    const until = Date.now() + 20_000;
    while (received.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_500));
  }, 120_000);

  it.each(CASES.map((c) => [c.change, c] as const))(
    "%s: the same state, audit entries and webhooks whichever door",
    async (_name, c) => {
      const byDoor = runs.get(c.change)!;
      const seen = await Promise.all(
        DOORS.map(async (door) => {
          const { site, secret } = byDoor[door];
          const { data } = await stack.audit.page({ workspaceId: site.workspaceId, limit: 100 });
          const entries = data.filter((e) => CHANGES.some((prefix) => e.action.startsWith(prefix)));
          return {
            state: await c.state(site, secret),
            audit: entries.map((e) => ({ action: e.action, ...(c.audited(e) as object) })),
            actors: entries.map((e) => e.actor.type),
            events: received
              .filter((e) => e.data["workspaceId"] === site.workspaceId)
              .map((e) => e.type)
              .sort(),
          };
        }),
      );
      const [api, page, command] = seen;
      // Each door as itself: a token, a console user, the CLI.
      expect(api!.actors.every((t) => t === "token")).toBe(true);
      expect(page!.actors.every((t) => t === "user")).toBe(true);
      expect(command!.actors.every((t) => t === "cli")).toBe(true);
      expect(api!.audit.length).toBeGreaterThan(0);
      expect(api!.events).toEqual([...c.events].sort());
      for (const other of [page, command]) {
        expect(other!.state).toEqual(api!.state);
        expect(other!.audit).toEqual(api!.audit);
        expect(other!.events).toEqual(api!.events);
      }
    },
  );
});
