import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { ManagementClient, ManagementError } from "../src/index.ts";

/** The typed management client against the real stack: docs/hosts.md's three calls and its loop. */
let stack: Stack;
let nats: TestServer;
let client: ManagementClient;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  const { token } = await stack.tokens.create({ name: "client test", scope: "operator" });
  client = new ManagementClient({ baseUrl: stack.gatewayUrl, token });
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

describe("ManagementClient", () => {
  it("provisions a site in three calls and finds it again by its external id", async () => {
    const externalId = `panel-${randomBytes(4).toString("hex")}`;
    const site = await client.createWorkspace(
      { name: "Bakery", plan: "free", externalId },
      `ws-${externalId}`,
    );
    const classify = await client.createConfiguration(site.id, { kind: "classify" }, `c-${externalId}`);
    const challenge = await client.createConfiguration(
      site.id,
      { kind: "challenge", hostnames: ["bakery.example"] },
      `h-${externalId}`,
    );
    expect(classify.secretKey).toMatch(/^sk_/);
    expect(challenge.siteKey).toMatch(/^pk_/);
    // A resend after a lost answer: the first answer again, the same secret, no second configuration.
    const again = await client.createConfiguration(site.id, { kind: "classify" }, `c-${externalId}`);
    expect(again.secretKey).toBe(classify.secretKey);
    expect((await client.listConfigurations(site.id)).data).toHaveLength(2);
    const found = [];
    for await (const w of client.workspaces({ externalId })) found.push(w.id);
    expect(found).toEqual([site.id]);
  });

  it("throws a ManagementError with the code and the existing id on a taken external id", async () => {
    const externalId = `dup-${randomBytes(4).toString("hex")}`;
    const first = await client.createWorkspace({ name: "One", plan: "free", externalId });
    const error = await client
      .createWorkspace({ name: "Two", plan: "free", externalId })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManagementError);
    expect(error).toMatchObject({ status: 409, code: "conflict", existingId: first.id });
  });

  it("adds, imports, pages and removes a site's list entries, and forgets its log and reports", async () => {
    const site = await client.createWorkspace({ name: "Lists", plan: "free" });
    expect(
      await client.addListEntry(site.id, { kind: "block", type: "domain", value: "https://Spam.example/x" }),
    ).toEqual({ kind: "block", type: "domain", value: "spam.example" });
    expect(
      await client.importListEntries(site.id, [
        { kind: "allow", type: "email", value: "ann@shop.example" },
        { kind: "block", type: "phrase", value: "free seo audit" },
      ]),
    ).toEqual({ entries: 2, added: 2 });
    const first = await client.listEntries(site.id, { limit: 2 });
    const rest = await client.listEntries(site.id, { limit: 2, cursor: first.nextCursor! });
    expect([...first.data, ...rest.data].map((e) => e.value)).toEqual([
      "ann@shop.example",
      "spam.example",
      "free seo audit",
    ]);
    expect(rest.nextCursor).toBeNull();
    await client.removeListEntry(site.id, { kind: "block", type: "domain", value: "spam.example" });
    expect((await client.listEntries(site.id, { kind: "block" })).data.map((e) => e.value)).toEqual([
      "free seo audit",
    ]);
    const bad = await client
      .addListEntry(site.id, { kind: "block", type: "email", value: "nobody" })
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: "invalid" });
    expect(await client.forgetVerdicts(site.id)).toEqual({ workspaceId: site.id, forgotten: true });
    expect(await client.forgetReports(site.id)).toMatchObject({ workspaceId: site.id, forgotten: true });
  });
});
