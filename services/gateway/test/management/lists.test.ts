import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { startServer, startStack, type Stack, type TestServer } from "@sift/testkit";
import { operatorToken, v1 } from "./helpers.ts";

/**
 * A site's lists through /v1 (docs/hosts.md, "Lists, the verdict log and reports"): added,
 * imported, paged with a cursor that survives changes between pages, narrowed by kind and type,
 * removed; a workspace token reaches its own site's lists and no other's.
 */
let stack: Stack;
let nats: TestServer;
let operator: string;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  operator = await operatorToken(stack);
});
afterAll(async () => {
  await stack?.stop();
  await nats?.stop();
});

const site = async () => (await stack.keystore.createWorkspace({ name: "lists", plan: "free" })).id;
const values = (body: Record<string, unknown>) =>
  (body["data"] as Array<{ kind: string; type: string; value: string }>).map(
    (e) => `${e.kind} ${e.type} ${e.value}`,
  );

describe("a site's lists through /v1", () => {
  it("adds an entry folded as stored, with who added it and when", async () => {
    const id = await site();
    const added = await v1(stack, "POST", `/v1/workspaces/${id}/lists`, {
      token: operator,
      body: { kind: "block", type: "domain", value: "https://www.Spam.example/offer" },
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ kind: "block", type: "domain", value: "spam.example" });
    const page = await v1(stack, "GET", `/v1/workspaces/${id}/lists`, { token: operator });
    expect(page.body["data"]).toEqual([
      expect.objectContaining({ value: "spam.example", addedBy: expect.stringMatching(/^tok_/) }),
    ]);
    expect(Date.parse((page.body["data"] as Array<{ addedAt: string }>)[0]!.addedAt)).not.toBeNaN();
  });

  it("pages every entry present throughout exactly once while others are added and removed", async () => {
    const id = await site();
    const entries = ["a", "b", "c", "d", "e", "f"].map((x) => ({
      kind: "block",
      type: "domain",
      value: `${x}.example`,
    }));
    const imported = await v1(stack, "POST", `/v1/workspaces/${id}/lists/import`, {
      token: operator,
      body: { entries },
    });
    expect(imported.body).toEqual({ entries: 6, added: 6 });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await v1(
        stack,
        "GET",
        `/v1/workspaces/${id}/lists?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        {
          token: operator,
        },
      );
      expect(res.status).toBe(200);
      seen.push(...values(res.body));
      cursor = res.body["nextCursor"] as string | null;
      // Between the first and second page: one entry before the cursor goes, one after it comes.
      if (pages++ === 0) {
        await v1(stack, "POST", `/v1/workspaces/${id}/lists/remove`, { token: operator, body: entries[0] });
        await v1(stack, "POST", `/v1/workspaces/${id}/lists`, {
          token: operator,
          body: { kind: "block", type: "domain", value: "cc.example" },
        });
      }
    } while (cursor !== null);
    expect(seen).toEqual([
      "block domain a.example",
      "block domain b.example",
      "block domain c.example",
      "block domain cc.example",
      "block domain d.example",
      "block domain e.example",
      "block domain f.example",
    ]);
  });

  it("narrows a page to one list, and to one type of it", async () => {
    const id = await site();
    await v1(stack, "POST", `/v1/workspaces/${id}/lists/import`, {
      token: operator,
      body: {
        entries: [
          { kind: "allow", type: "email", value: "Friend@Example.com" },
          { kind: "allow", type: "phrase", value: "order  status" },
          { kind: "block", type: "email", value: "x@spam.example" },
        ],
      },
    });
    const get = async (q: string) =>
      values((await v1(stack, "GET", `/v1/workspaces/${id}/lists?${q}`, { token: operator })).body);
    expect(await get("kind=allow")).toEqual(["allow email friend@example.com", "allow phrase order status"]);
    expect(await get("kind=allow&type=phrase")).toEqual(["allow phrase order status"]);
    expect(await get("kind=block&type=domain")).toEqual([]);
  });

  it("lets a workspace token change its own site's lists and answers another's with 404", async () => {
    const [own, other] = [await site(), await site()];
    const { token } = await stack.tokens.create({ name: "panel", scope: "workspace", workspaceId: own });
    const entry = { kind: "allow", type: "domain", value: "partner.example" };
    expect((await v1(stack, "POST", `/v1/workspaces/${own}/lists`, { token, body: entry })).status).toBe(200);
    expect((await v1(stack, "POST", `/v1/workspaces/${other}/lists`, { token, body: entry })).status).toBe(
      404,
    );
    expect((await v1(stack, "GET", `/v1/workspaces/${other}/lists`, { token, body: undefined })).status).toBe(
      404,
    );
    const audit = await stack.audit.page({ workspaceId: own, limit: 10 });
    expect(audit.data.map((e) => [e.action, e.actor.type])).toEqual([["list.add", "token"]]);
  });
});
