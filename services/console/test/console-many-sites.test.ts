import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { startStack, type Stack } from "@sift/testkit";
import { addUser, ConsoleClient } from "./helpers.ts";

/**
 * An operator's views at a host's scale (DESIGN, "many sites"): the home page and the switcher
 * search the workspace directory on the server, a page at a time, and never list the whole
 * deployment (this Redis holds every test file's workspaces).
 */
let stack: Stack;
const ADDRESS = `198.51.100.${(process.pid % 250) + 1}`;
const client = () => new ConsoleClient(stack.gatewayUrl, ADDRESS);
const prefix = `Many ${randomBytes(4).toString("hex")}`;
let op: ConsoleClient;

beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl"), trustProxy: 1 });
  for (let i = 0; i < 60; i++)
    await stack.keystore.createWorkspace({ name: `${prefix} ${String(i).padStart(2, "0")}`, plan: "free" });
  const email = `many-operator-${process.pid}@example.com`;
  await addUser(stack, email, { operator: true });
  op = client();
  await op.signIn(email);
});
afterAll(() => stack.stop());

const names = (page: string): string[] =>
  [...page.matchAll(/<a href="\/console\/w\/ws_[\w-]+\/sites">([^<]+)<\/a>/g)].map((m) => m[1]!);

describe("an operator's workspaces at scale", () => {
  it("searches by the start of a name, 50 to a page, with a next page holding the rest once", async () => {
    const first = await op.get(`/console/?q=${encodeURIComponent(prefix.toLowerCase())}`);
    expect(first.status).toBe(200);
    const one = names(first.text);
    expect(one).toHaveLength(50);
    const next = /<a rel="next" href="([^"]+)"/.exec(first.text)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    const second = await op.get(next!);
    const two = names(second.text);
    expect(two).toHaveLength(10);
    expect([...one, ...two]).toEqual(
      Array.from({ length: 60 }, (_, i) => `${prefix} ${String(i).padStart(2, "0")}`),
    );
    expect(second.text).not.toContain('rel="next"');
  });

  it("shows at most one page without a search, and a search box for a switcher, never a list of every workspace", async () => {
    const home = await op.get("/console/");
    expect(names(home.text).length).toBeLessThanOrEqual(50);
    expect(home.text).not.toContain('<select id="workspace-switch"');
    expect(home.text).toMatch(/<input\s+id="workspace-switch"\s+type="search"\s+name="q"/);
    const id = /\/console\/w\/(ws_[\w-]+)\/sites/.exec(home.text)![1]!;
    const page = await op.get(`/console/w/${id}/sites`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<option value="ws_');
  });

  it("starts a cursor that is not one of the directory's from the top, without an error", async () => {
    const res = await op.get(`/console/?q=${encodeURIComponent(prefix)}&after=%3Cscript%3E`);
    expect(res.status).toBe(200);
    expect(names(res.text)[0]).toBe(`${prefix} 00`);
  });

  it("edits a challenge configuration's hostnames, refusing one that is not a host and keeping the list", async () => {
    const ws = await stack.keystore.createWorkspace({ name: `${prefix} hosts`, plan: "free" });
    const created = await stack.keystore.createConfig(ws.id, "challenge");
    const page = `/console/w/${ws.id}/sites/${created!.config.id}`;
    expect((await op.get(page)).text).toContain('name="hostnames"');
    const saved = await op.post(`${page}/hostnames`, { hostnames: "Shop.example\n*.blog.example" });
    expect(saved.status).toBe(303);
    expect((await stack.keystore.getConfig(created!.config.id))?.hostnames).toEqual([
      "shop.example",
      "*.blog.example",
    ]);
    await op.get(page);
    const bad = await op.post(`${page}/hostnames`, { hostnames: "<script>alert(1)</script>" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(bad.text).not.toContain("<script>alert(1)</script>");
    expect((await stack.keystore.getConfig(created!.config.id))?.hostnames).toEqual([
      "shop.example",
      "*.blog.example",
    ]);
  });
});
