import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ReportStore } from "@sift/feedback";
import { AuditTrail, Keystore } from "@sift/keystore";
import { ReportExamples } from "@sift/learning";
import { deleteWorkspace, operationDeps, type Actor, type OperationDeps } from "@sift/operations";
import { silentLogger, systemClock } from "@sift/runtime";
import { DEFAULT_LOG_SETTINGS, LogKeyRing, RedisVerdictLog, logKeys, logLayout } from "@sift/verdicts";
import { WebhookStore, webhookSigningKey } from "@sift/webhooks";
import { AccountStore } from "../src/clients/accounts.ts";
import { InvitationStore } from "../src/clients/invitations.ts";
import { SecondFactorStore } from "../src/clients/second-factor.ts";
import { consoleLayout } from "../src/clients/store.ts";
import { ConsoleWorkspaces } from "../src/clients/workspaces.ts";

/**
 * `workspace.delete` as an operation on a real Redis with the console's own stores, as every
 * door builds it: a deleted site keeps none of its visitors' data, learned state, lists,
 * settings, webhooks, roles or invitations; another site keeps all of its own; the audit trail
 * keeps the site's entries; and a DELETE retried on a site whose record went first still forgets.
 */
let redis: Redis;
let ops: OperationDeps;
let keystore: Keystore;
let trail: AuditTrail;
let accounts: AccountStore;
let invitations: InvitationStore;
let secondFactor: SecondFactorStore;
let verdicts: RedisVerdictLog;
let reports: ReportStore;
let examples: ReportExamples;
let webhooks: WebhookStore;
const names = consoleLayout();

const operator: Actor = { audit: { type: "cli", id: "ann@ops-1" }, operator: true };

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  const clock = systemClock;
  keystore = new Keystore({ redis, clock });
  trail = new AuditTrail({ redis, clock });
  accounts = new AccountStore({ redis, clock });
  invitations = new InvitationStore({ redis, clock, lifetimeMs: 3_600_000 });
  secondFactor = new SecondFactorStore({ redis, clock });
  verdicts = new RedisVerdictLog({ redis, clock, keys: new LogKeyRing([]) });
  reports = new ReportStore({ redis, clock });
  examples = new ReportExamples({ redis });
  webhooks = new WebhookStore({ redis, clock, signingKey: webhookSigningKey("delete-site-test-secret") });
  ops = operationDeps({
    redis,
    clock,
    logger: silentLogger(),
    webhooks,
    members: accounts,
    verdicts,
    invitations,
    secondFactor,
    console: new ConsoleWorkspaces({ redis, clock }),
  });
});
afterAll(() => redis?.disconnect());

const unique = (name: string) => `${name}-${process.pid}-${randomUUID().slice(0, 8)}@example.com`;

/** A site with something in every place a site keeps things, and the people who work on it. */
const filledSite = async () => {
  const workspace = await keystore.createWorkspace({ name: "Doomed bakery", plan: "free" });
  const ws = workspace.id;
  const created = await keystore.createConfig(ws, "classify");
  await verdicts.append(
    {
      time: Date.now(),
      workspaceId: ws,
      configId: created!.config.id,
      operation: "verify",
      ok: true,
      reasons: [],
      listHits: [],
    },
    DEFAULT_LOG_SETTINGS,
  );
  await reports.addListEntries(
    ws,
    [{ kind: "block", type: "domain", value: "spam.example" }],
    "ann@x.example",
  );
  await reports.setStrictness(ws, "strict");
  await reports.setSharing(ws, true);
  await reports.setExpectedLanguages(ws, ["de"]);
  await examples.keep(ws, {
    label: 1,
    featurizerVersion: 1,
    reviewedAt: Date.now(),
    ids: Int32Array.from([7]),
    vals: Float32Array.from([1]),
  });
  await webhooks.create({ url: "https://panel.example/hooks", events: ["secret.rotated"], workspaceId: ws });
  const owner = (await accounts.addUser({
    email: unique("owner"),
    password: "correct horse battery staple",
    operator: false,
  }))!;
  await accounts.setRole(ws, owner.id, "owner");
  const made = await invitations.create({
    workspaceId: ws,
    email: unique("invitee"),
    role: "editor",
    invitedBy: "ann",
  });
  await secondFactor.setRequired(ws, true);
  return { ws, secretKey: created!.secretKey, owner, token: made.token };
};

/** What a site keeps, read through each store as its pages and workers read it. */
const keptOf = async (site: Awaited<ReturnType<typeof filledSite>>) => ({
  verdicts: (await verdicts.list(site.ws)).verdicts.length,
  logKeys: await redis.exists(...logKeys(logLayout(site.ws))),
  lists: (await reports.lists(site.ws)).length,
  settings: await reports.settings(site.ws),
  version: await reports.version(site.ws),
  kept: await examples.countOf(site.ws),
  webhooks: (await webhooks.of(site.ws)).length,
  role: await accounts.roleIn(site.ws, site.owner.id),
  ownerSites: Object.keys(await accounts.workspacesOf(site.owner.id)).filter((id) => id === site.ws),
  memberSince: await redis.exists(names.memberSince(site.ws)),
  invitations: (await invitations.pending(site.ws)).length,
  invitationOpens: (await invitations.peek(site.token)) !== null,
  secondFactor: await secondFactor.requiredIn(site.ws),
});

const NOTHING = {
  verdicts: 0,
  logKeys: 0,
  lists: 0,
  settings: { strictness: "balanced", shareReports: false, languages: [] },
  version: 0,
  kept: 0,
  webhooks: 0,
  role: null,
  ownerSites: [],
  memberSince: 0,
  invitations: 0,
  invitationOpens: false,
  secondFactor: false,
};

describe("deleting a site forgets everything that is its own", () => {
  it("leaves nothing of the deleted site, all of another's, and the audit trail's entries", async () => {
    const doomed = await filledSite();
    const other = await filledSite();
    // The doomed site's owner works on the other site too: that role stays.
    await accounts.setRole(other.ws, doomed.owner.id, "viewer");
    const otherBefore = await keptOf(other);
    expect(otherBefore).toMatchObject({
      verdicts: 1,
      lists: 1,
      kept: 1,
      webhooks: 1,
      role: "owner",
      invitations: 1,
    });

    const deleted = await deleteWorkspace(ops, operator, doomed.ws);
    expect(deleted.ok).toBe(true);

    expect(await keystore.getWorkspace(doomed.ws)).toBeNull();
    expect(await keystore.resolve(doomed.secretKey)).toBeNull();
    expect(await keptOf(doomed)).toEqual(NOTHING);
    // The owner's account stays (it may work on other sites); only the role is gone.
    expect(await accounts.getUser(doomed.owner.id)).not.toBeNull();
    expect(await accounts.workspacesOf(doomed.owner.id)).toEqual({ [other.ws]: "viewer" });
    expect(await accounts.roleIn(other.ws, doomed.owner.id)).toBe("viewer");
    expect(await keptOf(other)).toEqual(otherBefore);
    expect(await keystore.resolve(other.secretKey)).not.toBeNull();
    // The trail records what happened, the deletion included.
    const actions = (await trail.page({ workspaceId: doomed.ws, limit: 100 })).data.map((e) => e.action);
    expect(actions).toContain("workspace.delete");
  });

  it("forgets what is left when a DELETE is retried on a site whose record went first", async () => {
    const half = await filledSite();
    // A delete that died after the key store's part: keys and record gone, the rest still there.
    expect(await keystore.deleteWorkspace(half.ws)).not.toBeNull();
    expect((await keptOf(half)).verdicts).toBe(1);

    const retried = await deleteWorkspace(ops, operator, half.ws);
    expect(retried).toMatchObject({ ok: false, code: "not_found" });
    expect(await keptOf(half)).toEqual(NOTHING);
    // Nothing was deleted this time, so nothing more is recorded.
    const actions = (await trail.page({ workspaceId: half.ws, limit: 100 })).data.map((e) => e.action);
    expect(actions).not.toContain("workspace.delete");
  });

  it("forgets nothing for a caller who may not delete, nor for an id no workspace could have", async () => {
    const site = await filledSite();
    const before = await keptOf(site);
    const owner: Actor = {
      audit: { type: "user", id: "o@x.example" },
      operator: false,
      workspaceId: site.ws,
    };
    expect(await deleteWorkspace(ops, owner, site.ws)).toMatchObject({ ok: false, code: "forbidden" });
    expect(await deleteWorkspace(ops, operator, "not a workspace }{")).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await keptOf(site)).toEqual(before);
  });
});
