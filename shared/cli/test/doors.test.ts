import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { AccountStore } from "@sift/console/accounts";
import { InvitationStore } from "@sift/console/invitations";
import { ConsoleWorkspaces } from "@sift/console/workspaces";
import { BULL_PREFIX, workspaceLogFrom } from "@sift/contracts";
import { encodeSignature, fingerprint, ReportStore } from "@sift/feedback";
import { NoticeStore } from "@sift/keystore";
import { readFileSync } from "node:fs";
import { deploymentModels, ReportExamples, type ModelDeps } from "@sift/learning";
import { metaPathOf, MODEL_PATH, readModelMeta } from "@sift/model";
import { operationDeps } from "@sift/operations";
import { closeServer, createJobsRedis, listen, silentLogger, type RedisClient } from "@sift/runtime";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { DEFAULT_LOG_SETTINGS, LogKeyRing, RedisVerdictLog } from "@sift/verdicts";
import { createWebhookQueue, WebhookStore, webhookSigningKey } from "@sift/webhooks";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Queue } from "bullmq";
import { runCli } from "../src/run.ts";

/**
 * One operation per change (DESIGN; issue 58): each change below is made through every door that
 * offers it — /v1 (real HTTP, an operator token), the console (real HTTP, an operator's session,
 * its forms) and the CLI (runCli as main.ts wires it, its webhooks queued on the jobs Redis) —
 * each on a workspace of its own, on one real stack with webhook delivery to a real local
 * receiver. The doors must leave the same state, the same audit entries (action names and what
 * they record) and deliver the same webhooks. docs/hosts.md's table says which door offers which.
 */
let nats: TestServer;
let stack: Stack;
let jobsRedis: RedisClient;
let cliQueue: Queue;
let receiver: Server;
let receiverUrl: string;
let token: string;
let browser: Session;
let reports: ReportStore;
let examples: ReportExamples;
let models: ModelDeps;
let accounts: AccountStore;
let verdicts: RedisVerdictLog;
let invitations: InvitationStore;
let cli: (...argv: string[]) => ReturnType<typeof runCli>;
/** The CLI's webhook store: signing under the deployment's key, as main.ts with SIFT_INTERNAL_SECRET. */
let cliWebhooks: WebhookStore;
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
  reports = new ReportStore({ redis: stack.redis });
  examples = new ReportExamples({ redis: stack.redis });
  models = deploymentModels({ redis: stack.redis });
  accounts = new AccountStore({ redis: stack.redis, clock: stack.clock });
  verdicts = new RedisVerdictLog({ redis: stack.redis, clock: stack.clock, keys: new LogKeyRing([]) });
  invitations = new InvitationStore({ redis: stack.redis, clock: stack.clock, lifetimeMs: 3_600_000 });
  // The stack's BullMQ jobs live in database 1 (stack.ts): the CLI queues its webhooks there.
  jobsRedis = createJobsRedis({ url: `${inject("redisUrl")}/1` }, "doors-cli-jobs");
  cliQueue = createWebhookQueue({ connection: jobsRedis, prefix: BULL_PREFIX });
  cliWebhooks = new WebhookStore({
    redis: stack.redis,
    clock: stack.clock,
    queue: cliQueue,
    signingKey: webhookSigningKey(stack.internalSecret),
  });
  const deps = {
    keystore: stack.keystore,
    operations: operationDeps({
      redis: stack.redis,
      clock: stack.clock,
      logger: silentLogger(),
      webhooks: cliWebhooks,
      allowPrivateWebhooks: true,
      models,
      members: accounts,
      verdicts,
      console: new ConsoleWorkspaces({ redis: stack.redis, clock: stack.clock }),
    }),
    usage: stack.usage,
    notices: new NoticeStore({ redis: stack.redis }),
    reports,
    audit: { trail: stack.audit, actorId: "ann@ops-1" },
  };
  cli = (...argv) => runCli(argv, deps);
  const email = `doors-${process.pid}@example.com`;
  await accounts.addUser({
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
  /** What a case's setup made for its change to act on (a token's id). */
  made?: string;
  /** The audit entries made before the door ran (the site's own webhook, a setup's): not the change's. */
  before?: Set<string>;
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
  /** The audit actions this change records begin with this (`list.`, `token.`). */
  actions: string;
  setup?(site: Site): Promise<string | void>;
  /**
   * Runs the change through each door that offers it (docs/hosts.md says why a door lacks one);
   * returns the new secret where the change makes one. The first door's run is the one the
   * others must match.
   */
  doors: Partial<Record<Door, (site: Site) => Promise<string | void>>>;
  /** What the change leaves, with nothing that differs between two workspaces (ids, times). */
  state(site: Site, secret: string | void): Promise<unknown>;
  /** The workspace whose audit entries the change writes, if not the site's (a created one's). */
  auditOf?(site: Site, secret: string | void): string;
  /** The audit entries' fields that must match (besides the action), per entry. */
  audited(entry: { before?: unknown; after?: unknown }): unknown;
  /** The webhooks this change must deliver (at least one door's run shows each). */
  events: string[];
}

/** One review kept for the deployment's model (a sharing site's), as the learner keeps them. */
const keepAReview = (workspaceId: string, reviewedAt = Date.now()) =>
  examples.keep(workspaceId, {
    label: 1,
    featurizerVersion: 1,
    reviewedAt,
    ids: Int32Array.from([7]),
    vals: Float32Array.from([1]),
  });
/** A site that shares its reports and has one review kept: what turning sharing off or forgetting removes. */
const sharingWithAReview = async (workspaceId: string) => {
  await reports.setSharing(workspaceId, true);
  await keepAReview(workspaceId);
};

const settingsPage = (s: Site) => `/console/w/${s.workspaceId}/settings`;
/** The settings form as a browser sends it: every field, the changed ones as given. */
const settingsForm = async (s: Site, changes: Record<string, string>) => {
  const view = await v1("GET", `/v1/workspaces/${s.workspaceId}`);
  return {
    name: String(view["name"]),
    strictness: String(view["strictness"]),
    shareReports: view["shareReports"] ? "on" : "off",
    network: view["network"] ? "on" : "off",
    languages: (view["languages"] as string[]).join(", "),
    ...changes,
  };
};
const settings = async (s: Site) => ({
  ...(await reports.settings(s.workspaceId)),
  network: (await stack.keystore.getWorkspace(s.workspaceId))?.network !== false,
  kept: await examples.countOf(s.workspaceId),
});
const viewOf = (value: unknown) => {
  const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = (value ?? {}) as Record<string, unknown>;
  return rest;
};

const configShape = (v: unknown) => {
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

/** Creating a site, its verdict log's settings, a configuration's challenge settings: every door. */
function settingCases(): Case[] {
  return [
    {
      change: "create a site",
      actions: "workspace.",
      doors: {
        v1: async () =>
          (await v1("POST", "/v1/workspaces", { name: "Created site", plan: "free" }))["id"] as string,
        console: async () => {
          await browser.request("/console/");
          const res = await browser.request("/console/workspaces", { name: " Created site " });
          expect(res.status, res.text.slice(0, 300)).toBe(303);
          return /\/console\/w\/([\w-]+)\/sites/.exec(res.location ?? "")?.[1];
        },
        cli: async () =>
          (await sift("workspace", "create", "--name", "Created site", "--plan", "free"))[
            "workspaceId"
          ] as string,
      },
      auditOf: (_s, id) => id as string,
      state: async (_s, id) => {
        const w = typeof id === "string" ? await stack.keystore.getWorkspace(id) : null;
        return w && viewOf({ ...(await v1("GET", `/v1/workspaces/${w.id}`)) });
      },
      audited: (e) => ({ before: e.before, after: viewOf(e.after) }),
      events: [],
    },
    {
      change: "set the verdict log's privacy, retention and maximum",
      actions: "workspace.",
      doors: {
        v1: async (s) =>
          void (await v1("PATCH", `/v1/workspaces/${s.workspaceId}`, {
            logPrivacy: "none",
            logRetentionDays: 30,
            logMaxEntries: 5000,
          })),
        console: async (s) => {
          const page = `/console/w/${s.workspaceId}/submissions`;
          await browser.submit(page, `/console/w/${s.workspaceId}/log`, {
            privacy: "none",
            retention_days: "30",
            max_entries: "5000",
          });
        },
        cli: async (s) =>
          void (await sift(
            "workspace",
            "set",
            "--workspace",
            s.workspaceId,
            "--log-privacy",
            "none",
            "--log-retention-days",
            "30",
            "--log-max-entries",
            "5000",
          )),
      },
      state: async (s) => ({
        log: workspaceLogFrom((await stack.keystore.getWorkspace(s.workspaceId))!),
        keyRecord: (await stack.keystore.resolve(s.secretKey))?.log,
      }),
      audited: (e) => ({ before: viewOf(e.before), after: viewOf(e.after) }),
      events: [],
    },
    {
      change: "set a challenge configuration's difficulty, life and adaptive mode",
      actions: "configuration.",
      doors: {
        v1: async (s) =>
          void (await v1("PATCH", `/v1/configurations/${s.configId}`, {
            difficulty: 12,
            challengeTtlSeconds: 300,
            adaptive: true,
          })),
        console: async (s) => {
          const page = `/console/w/${s.workspaceId}/sites/${s.configId}`;
          await browser.submit(page, page, { difficulty: "12", life: "300", adaptive: "on" });
        },
        cli: async (s) =>
          void (await sift(
            "config",
            "set",
            "--config",
            s.configId,
            "--difficulty",
            "12",
            "--challenge-ttl",
            "300",
            "--adaptive",
            "on",
          )),
      },
      state: async (s) => {
        const c = (await stack.keystore.getConfig(s.configId))!;
        return { difficulty: c.difficulty, challengeTtlMs: c.challengeTtlMs, adaptive: c.adaptive };
      },
      audited: (e) => ({ before: configShape(e.before), after: configShape(e.after) }),
      events: [],
    },
  ];
}

const listsPage = (s: Site) => `/console/w/${s.workspaceId}/lists`;
const listsOf = async (s: Site) => ({ entries: await reports.lists(s.workspaceId) });

/** A CSV file of list entries, as `sift list import --file` reads it. */
const csvFile = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "sift-doors-")), "lists.csv");
  writeFileSync(path, text);
  return path;
};
const IMPORT_CSV = "kind,type,value\nblock,email,a@b.example\nblock,domain,c.example\n";

/** Lists: every door. */
function listCases(): Case[] {
  return [
    {
      change: "add a list entry",
      actions: "list.",
      doors: {
        v1: async (s) =>
          void (await v1("POST", `/v1/workspaces/${s.workspaceId}/lists`, {
            kind: "block",
            type: "domain",
            value: "https://www.Spam.example/offer",
          })),
        console: async (s) =>
          void (await browser.submit(listsPage(s), `${listsPage(s)}/add`, {
            kind: "block",
            type: "domain",
            value: "https://www.Spam.example/offer",
          })),
        cli: async (s) =>
          void (await sift(
            "list",
            "add",
            "--workspace",
            s.workspaceId,
            "--block",
            "--type",
            "domain",
            "https://www.Spam.example/offer",
          )),
      },
      state: listsOf,
      audited: (e) => ({ before: e.before, after: e.after }),
      events: [],
    },
    {
      change: "remove a list entry",
      actions: "list.",
      setup: async (s) =>
        void (await reports.updateList(s.workspaceId, "add", {
          kind: "allow",
          type: "phrase",
          value: "hi there",
        })),
      doors: {
        v1: async (s) =>
          void (await v1("POST", `/v1/workspaces/${s.workspaceId}/lists/remove`, {
            kind: "allow",
            type: "phrase",
            value: "Hi  There",
          })),
        console: async (s) =>
          void (await browser.submit(listsPage(s), `${listsPage(s)}/remove`, {
            kind: "allow",
            type: "phrase",
            value: "Hi  There",
          })),
        cli: async (s) =>
          void (await sift(
            "list",
            "remove",
            "--workspace",
            s.workspaceId,
            "--allow",
            "--type",
            "phrase",
            "Hi  There",
          )),
      },
      state: listsOf,
      audited: (e) => ({ before: e.before, after: e.after }),
      events: [],
    },
    {
      change: "import list entries",
      actions: "list.",
      setup: async (s) =>
        void (await reports.updateList(s.workspaceId, "add", {
          kind: "block",
          type: "email",
          value: "a@b.example",
        })),
      doors: {
        v1: async (s) =>
          void (await v1("POST", `/v1/workspaces/${s.workspaceId}/lists/import`, {
            entries: [
              { kind: "block", type: "email", value: "a@b.example" },
              { kind: "block", type: "domain", value: "c.example" },
            ],
          })),
        console: async (s) =>
          void (await browser.submit(listsPage(s), `${listsPage(s)}/import`, { csv: IMPORT_CSV })),
        cli: async (s) =>
          void (await sift("list", "import", "--workspace", s.workspaceId, "--file", csvFile(IMPORT_CSV))),
      },
      state: listsOf,
      audited: (e) => ({ after: e.after }),
      events: [],
    },
  ];
}

const tokensOf = async (s: Site) => {
  const { data } = await stack.tokens.page(1000, null);
  return data
    .filter((t) => t.workspaceId === s.workspaceId)
    .map((t) => ({ name: t.name, scope: t.scope, readOnly: t.readOnly, revoked: t.revokedAt !== undefined }));
};
const tokenShape = (v: unknown) => {
  if (v === undefined) return undefined;
  const {
    tokenId: _id,
    workspaceId: _w,
    createdAt: _c,
    expiresAt,
    revokedAt,
    ...rest
  } = v as Record<string, unknown>;
  return { ...rest, expires: expiresAt !== null, revoked: revokedAt !== null };
};

/** Tokens: /v1 and the CLI (the console signs people in; it hands out no machine tokens). */
function tokenCases(): Case[] {
  return [
    {
      change: "create a read-only workspace token",
      actions: "token.",
      doors: {
        v1: async (s) =>
          void (await v1("POST", "/v1/tokens", {
            name: "panel",
            scope: "workspace",
            workspaceId: s.workspaceId,
            readOnly: true,
            expiresInSeconds: 86_400,
          })),
        cli: async (s) =>
          void (await sift(
            "token",
            "create",
            "--name",
            "panel",
            "--scope",
            "workspace",
            "--workspace",
            s.workspaceId,
            "--read-only",
            "--expires-in",
            "1d",
          )),
      },
      state: tokensOf,
      audited: (e) => ({ before: tokenShape(e.before), after: tokenShape(e.after) }),
      events: [],
    },
    {
      change: "revoke a token",
      actions: "token.",
      setup: async (s) =>
        (await stack.tokens.create({ name: "old", scope: "workspace", workspaceId: s.workspaceId })).record
          .tokenId,
      doors: {
        v1: async (s) => void (await v1("DELETE", `/v1/tokens/${s.made}`)),
        cli: async (s) => void (await sift("token", "revoke", "--token", s.made!)),
      },
      state: async (s) => ({
        tokens: await tokensOf(s),
        refused: (await stack.tokens.get(s.made!))?.revokedAt !== undefined,
      }),
      audited: (e) => ({ before: tokenShape(e.before), after: tokenShape(e.after) }),
      events: [],
    },
  ];
}

const membersPage = (s: Site) => `/console/w/${s.workspaceId}/members`;
/** A console user who is an editor of the site (its id), with an owner beside them to keep. */
const editor = async (s: Site) => {
  const [owner, member] = await Promise.all(
    ["owner", "member"].map((who) =>
      accounts.addUser({
        email: `${who}-${s.workspaceId}@example.com`,
        password: "correct horse battery",
        operator: false,
      }),
    ),
  );
  await accounts.setRole(s.workspaceId, owner!.id, "owner");
  await accounts.setRole(s.workspaceId, member!.id, "editor");
  return member!.id;
};
const emailOf = async (s: Site) => (await accounts.getUser(s.made!))!.email;
const roleShape = (v: unknown) => (v === undefined ? undefined : { role: (v as { role: unknown }).role });

/** Members: the console (an owner's page) and the CLI (`console member set`); /v1 has no console accounts. */
function memberCases(): Case[] {
  return [
    {
      change: "change a member's role",
      actions: "member.",
      setup: editor,
      doors: {
        console: async (s) =>
          void (await browser.submit(membersPage(s), `${membersPage(s)}/role`, {
            user: s.made!,
            role: "viewer",
          })),
        cli: async (s) =>
          void (await sift(
            "console",
            "member",
            "set",
            "--workspace",
            s.workspaceId,
            "--email",
            await emailOf(s),
            "--role",
            "viewer",
          )),
      },
      state: async (s) => ({ role: await accounts.roleIn(s.workspaceId, s.made!) }),
      audited: (e) => ({ before: roleShape(e.before), after: roleShape(e.after) }),
      events: [],
    },
    {
      change: "remove a member",
      actions: "member.",
      setup: editor,
      doors: {
        console: async (s) =>
          void (await browser.submit(membersPage(s), `${membersPage(s)}/remove`, { user: s.made! })),
        cli: async (s) =>
          void (await sift(
            "console",
            "member",
            "set",
            "--workspace",
            s.workspaceId,
            "--email",
            await emailOf(s),
            "--role",
            "none",
          )),
      },
      state: async (s) => ({ role: await accounts.roleIn(s.workspaceId, s.made!) }),
      audited: (e) => ({ before: roleShape(e.before), after: roleShape(e.after) }),
      events: [],
    },
  ];
}

/** Forgetting a site's verdict log and what its reports taught: every door. */
function forgetCases(): Case[] {
  return [
    {
      change: "forget the verdict log",
      actions: "workspace.forget-log",
      setup: async (s) =>
        void (await verdicts.append(
          {
            time: Date.now(),
            workspaceId: s.workspaceId,
            configId: s.configId,
            operation: "verify",
            ok: true,
            reasons: [],
            listHits: [],
          },
          DEFAULT_LOG_SETTINGS,
        )),
      doors: {
        v1: async (s) => void (await v1("DELETE", `/v1/workspaces/${s.workspaceId}/verdicts`)),
        console: async (s) => {
          const page = `/console/w/${s.workspaceId}/submissions`;
          await browser.submit(page, `/console/w/${s.workspaceId}/log/forget`, { confirm: "yes" });
        },
        cli: async (s) => void (await sift("workspace", "forget-log", "--workspace", s.workspaceId)),
      },
      state: async (s) => ({ kept: (await verdicts.list(s.workspaceId)).verdicts.length }),
      audited: (e) => ({ before: e.before, after: e.after }),
      events: [],
    },
    {
      change: "forget what a site's reports taught",
      actions: "feedback.forget",
      setup: (s) => sharingWithAReview(s.workspaceId),
      doors: {
        v1: async (s) => void (await v1("DELETE", `/v1/workspaces/${s.workspaceId}/reports`)),
        console: async (s) =>
          void (await browser.submit(settingsPage(s), `/console/w/${s.workspaceId}/reports/forget`, {
            confirm: "yes",
          })),
        cli: async (s) => void (await sift("feedback", "forget", "--workspace", s.workspaceId)),
      },
      state: async (s) => ({
        kept: await examples.countOf(s.workspaceId),
        ...(await reports.stats(s.workspaceId)),
      }),
      audited: (e) => ({ before: e.before, after: e.after }),
      events: [],
    },
  ];
}

/** Each filled site's console owner, to read their own list of sites. */
const ownerOf = new Map<string, string>();
/**
 * Something in every place a site keeps things: a verdict (its visitors' data), a report its
 * layer learned, a kept review, a list entry, its settings, an owner and a pending invitation.
 * No second-factor rule: the console would ask its operator for one (the console's
 * delete-site.test.ts has it). Fixed times, so two sites filled alike read alike.
 */
const fillSite = async (workspaceId: string, configId: string) => {
  await verdicts.append(
    {
      time: Date.now(),
      workspaceId,
      configId,
      operation: "verify",
      ok: true,
      reasons: [],
      listHits: [],
    },
    DEFAULT_LOG_SETTINGS,
  );
  await reports.record(workspaceId, {
    workspaceId,
    label: "spam",
    buckets: [1, 2, 3],
    fingerprint: encodeSignature(fingerprint([["message", `buy now ${workspaceId}`]])),
    reportedAt: 1_700_000_000_000,
    logOdds: 1,
    modelVersion: "doors",
  });
  await keepAReview(workspaceId, 1_700_000_000_000);
  await reports.addListEntries(
    workspaceId,
    [{ kind: "block", type: "domain", value: "spam.example" }],
    "ann",
  );
  await reports.setStrictness(workspaceId, "strict");
  await reports.setSharing(workspaceId, true);
  await reports.setExpectedLanguages(workspaceId, ["de"]);
  const owner = await accounts.addUser({
    email: `owner-${workspaceId}@example.com`,
    password: "correct horse battery",
    operator: false,
  });
  await accounts.setRole(workspaceId, owner!.id, "owner");
  ownerOf.set(workspaceId, owner!.id);
  await invitations.create({
    workspaceId,
    email: `invitee-${workspaceId}@example.com`,
    role: "editor",
    invitedBy: "ann",
  });
};
/** What `fillSite` left of a site, with nothing that differs between two sites (ids, times). */
const siteData = async (workspaceId: string) => ({
  verdicts: (await verdicts.list(workspaceId)).verdicts.length,
  learned: await reports.stats(workspaceId),
  kept: await examples.countOf(workspaceId),
  lists: await reports.lists(workspaceId),
  settings: await reports.settings(workspaceId),
  webhooks: (await cliWebhooks.of(workspaceId)).length,
  roles: Object.values(await accounts.membersOf(workspaceId)),
  ownerSites: Object.keys(await accounts.workspacesOf(ownerOf.get(workspaceId)!)).length,
  invitations: (await invitations.pending(workspaceId)).length,
});
/** A site `fillSite` filled, once deleted. */
const FORGOTTEN = {
  verdicts: 0,
  learned: { spam: 0, clean: 0, updatedAt: null, version: 0 },
  kept: 0,
  lists: [],
  settings: { strictness: "balanced", shareReports: false, languages: [] },
  webhooks: 0,
  roles: [],
  ownerSites: 0,
  invitations: 0,
};

/** Deleting a site (every door), a configuration and webhooks (/v1 and the CLI: docs/hosts.md says why not the console). */
function deletionCases(): Case[] {
  const hooksOf = async (s: Site) =>
    (await cliWebhooks.of(s.workspaceId)).map((w) => ({ url: w.url, events: w.events }));
  const hookShape = (v: unknown) => {
    if (v === undefined) return undefined;
    const { id: _id, workspaceId: _w, createdAt: _c, ...rest } = v as Record<string, unknown>;
    return rest;
  };
  return [
    {
      change: "delete a site",
      actions: "workspace.",
      // The site filled, and a neighbour filled alike that no door deletes (its id: `made`).
      setup: async (s) => {
        await fillSite(s.workspaceId, s.configId);
        const neighbour = await newSite();
        await fillSite(neighbour.workspaceId, neighbour.configId);
        return neighbour.workspaceId;
      },
      doors: {
        v1: async (s) => void (await v1("DELETE", `/v1/workspaces/${s.workspaceId}`)),
        console: async (s) => {
          const page = `/console/w/${s.workspaceId}/delete`;
          await browser.submit(page, page, { confirm: "yes" });
        },
        cli: async (s) => void (await sift("workspace", "delete", "--workspace", s.workspaceId)),
      },
      state: async (s) => ({
        workspace: await stack.keystore.getWorkspace(s.workspaceId),
        secretWorks: (await stack.keystore.resolve(s.secretKey)) !== null,
        site: await siteData(s.workspaceId),
        neighbour: await siteData(s.made!),
      }),
      audited: (e) => ({ before: viewOf(e.before), after: e.after }),
      events: [],
    },
    {
      change: "delete a configuration",
      actions: "configuration.",
      doors: {
        v1: async (s) => void (await v1("DELETE", `/v1/configurations/${s.configId}`)),
        cli: async (s) => void (await sift("config", "delete", "--config", s.configId)),
      },
      state: async (s) => ({
        configurations: (await stack.keystore.configIdsOf(s.workspaceId)).length,
        secretWorks: (await stack.keystore.resolve(s.secretKey)) !== null,
      }),
      audited: (e) => {
        const {
          id: _id,
          workspaceId: _w,
          siteKey,
          createdAt: _c,
          updatedAt: _u,
          ...rest
        } = e.before as Record<string, unknown>;
        return { ...rest, siteKey: typeof siteKey, after: e.after };
      },
      events: [],
    },
    {
      change: "create a webhook",
      actions: "webhook.",
      doors: {
        v1: async (s) =>
          void (await v1("POST", "/v1/webhooks", {
            url: `${receiverUrl}/panel`,
            events: ["workspace.state"],
            workspaceId: s.workspaceId,
          })),
        cli: async (s) =>
          void (await sift(
            "webhook",
            "create",
            "--url",
            `${receiverUrl}/panel`,
            "--events",
            "workspace.state",
            "--workspace",
            s.workspaceId,
          )),
      },
      state: hooksOf,
      audited: (e) => ({ before: hookShape(e.before), after: hookShape(e.after) }),
      events: [],
    },
    {
      change: "delete a webhook",
      actions: "webhook.",
      setup: async (s) =>
        (
          await cliWebhooks.create({
            url: `${receiverUrl}/old`,
            events: ["usage.threshold"],
            workspaceId: s.workspaceId,
          })
        ).record.id,
      doors: {
        v1: async (s) => void (await v1("DELETE", `/v1/webhooks/${s.made}`)),
        cli: async (s) => void (await sift("webhook", "delete", "--webhook", s.made!)),
      },
      state: async (s) => ({ hooks: await hooksOf(s), gone: (await cliWebhooks.get(s.made!)) === null }),
      audited: (e) => ({ before: hookShape(e.before), after: hookShape(e.after) }),
      events: [],
    },
  ];
}

const CASES: Case[] = [
  {
    change: "rotate a secret with a grace",
    actions: "configuration.",
    doors: {
      v1: async (s) =>
        (await v1("POST", `/v1/configurations/${s.configId}/rotate-secret`, { graceSeconds: 3600 }))[
          "secretKey"
        ] as string,
      console: async (s) => {
        const base = `/console/w/${s.workspaceId}/sites/${s.configId}`;
        const page = await browser.submit(base, `${base}/rotate`, { grace: "3600", confirm: "yes" });
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
    actions: "workspace.",
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
    actions: "workspace.",
    setup: (s) => sharingWithAReview(s.workspaceId),
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
    actions: "workspace.",
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
    actions: "configuration.",
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
    actions: "configuration.",
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
    audited: (e) => ({ before: configShape(e.before), after: configShape(e.after) }),
    events: [],
  },
  {
    change: "rename a site",
    actions: "workspace.",
    doors: {
      v1: async (s) => void (await v1("PATCH", `/v1/workspaces/${s.workspaceId}`, { name: "Bakery Ltd" })),
      console: async (s) =>
        void (await browser.submit(
          settingsPage(s),
          settingsPage(s),
          await settingsForm(s, { name: "  Bakery Ltd " }),
        )),
      cli: async (s) =>
        void (await sift("workspace", "set", "--workspace", s.workspaceId, "--name", "Bakery Ltd")),
    },
    state: async (s) => ({ name: (await stack.keystore.getWorkspace(s.workspaceId))?.name }),
    audited: (e) => ({ before: viewOf(e.before), after: viewOf(e.after) }),
    events: [],
  },
  {
    change: "set a site's external id and labels",
    actions: "workspace.",
    doors: {
      v1: async (s) =>
        void (await v1("PATCH", `/v1/workspaces/${s.workspaceId}`, {
          externalId: `panel-${s.workspaceId}`,
          labels: { reseller: "r12", region: "eu" },
        })),
      cli: async (s) =>
        void (await sift(
          "workspace",
          "set",
          "--workspace",
          s.workspaceId,
          "--external-id",
          `panel-${s.workspaceId}`,
          "--labels",
          "reseller=r12,region=eu",
        )),
    },
    state: async (s) => {
      const w = (await stack.keystore.getWorkspace(s.workspaceId))!;
      return {
        externalId: w.externalId === `panel-${s.workspaceId}`,
        labels: w.labels,
        found: (await stack.keystore.workspaceIdByExternalId(`panel-${s.workspaceId}`)) === s.workspaceId,
      };
    },
    audited: (e) => {
      const shape = (v: unknown) => {
        const { externalId, ...rest } = viewOf(v);
        return { ...rest, externalId: externalId === null ? null : "set" };
      };
      return { before: shape(e.before), after: shape(e.after) };
    },
    events: [],
  },
  {
    change: "rename a configuration",
    actions: "configuration.",
    doors: {
      v1: async (s) => void (await v1("PATCH", `/v1/configurations/${s.configId}`, { name: "Contact form" })),
      console: async (s) => {
        const page = `/console/w/${s.workspaceId}/sites/${s.configId}`;
        await browser.submit(page, `${page}/rename`, { name: "Contact form" });
      },
      cli: async (s) => void (await sift("config", "set", "--config", s.configId, "--name", "Contact form")),
    },
    state: async (s) => ({ name: (await stack.keystore.getConfig(s.configId))?.name }),
    audited: (e) => ({ before: configShape(e.before), after: configShape(e.after) }),
    events: [],
  },
  ...settingCases(),
  ...listCases(),
  ...tokenCases(),
  ...memberCases(),
  ...forgetCases(),
  ...deletionCases(),
];

/** Each case's sites by door, made and changed in beforeAll-free sequence so webhooks can settle. */
const runs = new Map<string, Partial<Record<Door, { site: Site; secret: string | void }>>>();
const doorsOf = (c: Case): Door[] => DOORS.filter((door) => c.doors[door] !== undefined);
/** How each door is recorded as the actor: a token, a console user, the CLI. */
const ACTOR: Record<Door, string> = { v1: "token", console: "user", cli: "cli" };

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

describe("one operation per change, through /v1, the console and the CLI", () => {
  beforeAll(async () => {
    for (const c of CASES) {
      const byDoor: Partial<Record<Door, { site: Site; secret: string | void }>> = {};
      for (const door of doorsOf(c)) {
        const site = await newSite();
        const made = await c.setup?.(site);
        if (made) site.made = made;
        const { data } = await stack.audit.page({ workspaceId: site.workspaceId, limit: 100 });
        site.before = new Set(data.map((e) => e.id));
        byDoor[door] = { site, secret: await c.doors[door]!(site) };
      }
      runs.set(c.change, byDoor);
    }
    // Deliveries are jobs: wait for every expected one, then a little longer for any extra.
    const expected = CASES.reduce((n, c) => n + c.events.length * doorsOf(c).length, 0);
    const until = Date.now() + 20_000;
    while (received.length < expected && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_500));
  }, 120_000);

  it.each(CASES.map((c) => [c.change, c] as const))(
    "%s: the same state, audit entries and webhooks whichever door",
    async (_name, c) => {
      const byDoor = runs.get(c.change)!;
      const seen = await Promise.all(
        doorsOf(c).map(async (door) => {
          const { site, secret } = byDoor[door]!;
          const { data } = await stack.audit.page({
            workspaceId: c.auditOf?.(site, secret) ?? site.workspaceId,
            limit: 100,
          });
          const entries = data.filter((e) => e.action.startsWith(c.actions) && !site.before?.has(e.id));
          return {
            door,
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
      const [first, ...others] = seen;
      // Each door as itself: a token, a console user, the CLI.
      for (const run of seen) expect(run.actors.every((t) => t === ACTOR[run.door])).toBe(true);
      expect(first!.audit.length).toBeGreaterThan(0);
      expect(first!.events).toEqual([...c.events].sort());
      for (const other of others) {
        expect(other.state, other.door).toEqual(first!.state);
        expect(other.audit, other.door).toEqual(first!.audit);
        expect(other.events, other.door).toEqual(first!.events);
      }
    },
  );

  it("delete a site: whichever door, nothing of the site is left, its neighbour keeps all, the trail keeps its entries", async () => {
    const byDoor = runs.get("delete a site")!;
    const filled = {
      verdicts: 1,
      learned: { spam: 1, clean: 0, updatedAt: 1_700_000_000_000, version: 4 },
      kept: 1,
      lists: [{ kind: "block", type: "domain", value: "spam.example" }],
      settings: { strictness: "strict", shareReports: true, languages: ["de"] },
      webhooks: 1,
      roles: ["owner"],
      ownerSites: 1,
      invitations: 1,
    };
    for (const door of DOORS) {
      const { site } = byDoor[door]!;
      expect(await siteData(site.workspaceId), door).toEqual(FORGOTTEN);
      expect(await siteData(site.made!), door).toEqual(filled);
      const { data } = await stack.audit.page({ workspaceId: site.workspaceId, limit: 100 });
      expect(
        data.map((e) => e.action),
        door,
      ).toContain("workspace.delete");
      // The neighbour's webhook still takes its events: only the deleted site's went.
      expect(
        (await cliWebhooks.of(site.made!)).map((w) => w.url),
        door,
      ).toEqual([receiverUrl]);
    }
  });
});

/**
 * The model in service is the deployment's, not a workspace's: its changes name no workspace,
 * so each door's entries are read from the trail by time. /v1 and the CLI promote and roll back
 * (the console shows the model, read-only). The version promoted is the shipped model's file
 * stored as a deployment version that won its comparison, so the workers load a real model.
 */
describe("the model in service, through /v1 and the CLI", () => {
  const MODEL_DOORS = {
    v1: {
      promote: (version: string) => v1("POST", "/v1/model/promote", { version }),
      rollback: () => v1("POST", "/v1/model/rollback"),
    },
    cli: {
      promote: (version: string) => sift("model", "promote", "--version", version),
      rollback: () => sift("model", "rollback"),
    },
  };

  it("promotes and rolls back with the same answers, state and audit entries whichever door", async () => {
    const meta = readModelMeta(metaPathOf(MODEL_PATH));
    const version = `${meta.version}-d${await models.versions.nextNumber()}`;
    await models.versions.add(
      {
        onnx: readFileSync(MODEL_PATH),
        meta: JSON.stringify({ ...meta, version }),
        info: {
          version,
          source: "deployment",
          base: meta.version,
          trainedAt: Date.now(),
          reviews: 0,
          sites: 0,
          skipped: 0,
          comparison: null,
          wins: true,
        },
      },
      Date.now(),
    );
    const seen = [];
    for (const [door, run] of Object.entries(MODEL_DOORS)) {
      const since = Date.now();
      const promoted = await run.promote(version);
      const serving = await models.versions.serving();
      const back = await run.rollback();
      const { data } = await stack.audit.page({ since, limit: 1000 });
      const entries = data.filter((e) => e.action.startsWith("model."));
      expect(entries.every((e) => e.actor.type === (door === "v1" ? "token" : "cli"))).toBe(true);
      seen.push({
        answers: [promoted, back],
        state: { serving, after: await models.versions.serving() },
        audit: entries.map(({ action, target, before, after, workspaceId }) => ({
          action,
          target,
          before,
          after,
          workspaceId,
        })),
      });
    }
    expect(seen[0]!.state).toEqual({ serving: version, after: null });
    expect(seen[0]!.audit.map((e) => e.action)).toEqual(["model.promote", "model.rollback"]);
    expect(seen[1]).toEqual(seen[0]);
  });
});
