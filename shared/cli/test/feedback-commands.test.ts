import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { ReportStore } from "@sift/feedback";
import { Keystore, NoticeStore, RedisUsageMeter } from "@sift/keystore";
import { systemClock } from "@sift/runtime";
import { runCli } from "../src/run.ts";
import { cliOperations } from "./operations.ts";

let redis: Redis;
let keystore: Keystore;
let reports: ReportStore;
let cli: (...argv: string[]) => ReturnType<typeof runCli>;

beforeAll(() => {
  redis = new Redis(inject("redisUrl"));
  keystore = new Keystore({ redis, clock: systemClock });
  reports = new ReportStore({ redis });
  const deps = {
    keystore,
    operations: cliOperations(redis),
    usage: new RedisUsageMeter({ redis, clock: systemClock }),
    notices: new NoticeStore({ redis }),
    reports,
  };
  cli = (...argv) => runCli(argv, deps);
});
afterAll(() => redis?.quit());

const ok = async (...argv: string[]) => {
  const result = await cli(...argv);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
};
const newWorkspace = async () => (await keystore.createWorkspace({ name: "site", plan: "free" })).id;

describe("sift list", () => {
  it("adds, shows and removes block and allow entries, normalised", async () => {
    const ws = await newWorkspace();
    expect(
      await ok("list", "add", "--workspace", ws, "--block", "--type", "domain", "https://WWW.Spam.Example/x"),
    ).toEqual({
      workspaceId: ws,
      added: { kind: "block", type: "domain", value: "spam.example" },
    });
    await ok("list", "add", "--workspace", ws, "--allow", "--type", "email", "Ann@Shop.Example");
    await ok("list", "add", "--workspace", ws, "--block", "--type", "phrase", "Free SEO audit");
    expect((await ok("list", "show", "--workspace", ws)).entries).toEqual([
      { kind: "allow", type: "email", value: "ann@shop.example" },
      { kind: "block", type: "domain", value: "spam.example" },
      { kind: "block", type: "phrase", value: "free seo audit" },
    ]);
    expect((await ok("list", "show", "--workspace", ws, "--block", "--type", "phrase")).entries).toEqual([
      { kind: "block", type: "phrase", value: "free seo audit" },
    ]);
    const added = await reports.listAdded(ws);
    expect(added.get("block|domain|spam.example")).toMatchObject({ by: "CLI" });
    await ok("list", "remove", "--workspace", ws, "--block", "--type", "domain", "spam.example");
    expect((await reports.lists(ws)).map((e) => e.value)).toEqual(["ann@shop.example", "free seo audit"]);
    // A removed entry's record goes with it: the console shows only entries there are.
    expect([...(await reports.listAdded(ws)).keys()].sort()).toEqual([
      "allow|email|ann@shop.example",
      "block|phrase|free seo audit",
    ]);
  });

  it.each([
    [
      ["list", "add", "--workspace", "W", "--type", "domain", "a.example"],
      2,
      /--block or --allow is required/,
    ],
    [
      ["list", "add", "--workspace", "W", "--block", "--allow", "--type", "domain", "a.example"],
      2,
      /not both/,
    ],
    [
      ["list", "add", "--workspace", "W", "--block", "--type", "url", "a.example"],
      2,
      /--type: "url" is not valid/,
    ],
    [["list", "add", "--workspace", "W", "--block", "--type", "domain"], 2, /--value is required/],
    [["list", "add", "--workspace", "W", "--block", "--type", "domain", "a", "b"], 2, /one value expected/],
    [
      ["list", "add", "--workspace", "ws_nope", "--block", "--type", "domain", "a.example"],
      1,
      /no workspace ws_nope/,
    ],
  ])("refuses %j with exit %i", async (argv, code, message) => {
    const ws = await newWorkspace();
    const result = await cli(...argv.map((a) => (a === "W" ? ws : a)));
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it("refuses a value that is not of its type", async () => {
    const ws = await newWorkspace();
    const result = await cli("list", "add", "--workspace", ws, "--block", "--type", "email", "nobody");
    expect(result).toMatchObject({ code: 2, stderr: expect.stringMatching(/"nobody" is not a valid email/) });
  });
});

describe("sift feedback and sharing", () => {
  it("shows a workspace's reports by label, last retrain time and version, and forgets them", async () => {
    const ws = await newWorkspace();
    expect(await ok("feedback", "stats", "--workspace", ws)).toEqual({
      workspaceId: ws,
      reports: { spam: 0, clean: 0 },
      lastRetrainAt: null,
      version: 0,
      shareReports: false,
      strictness: "balanced",
    });
    const at = Date.UTC(2026, 10, 23, 12);
    const report = { workspaceId: ws, buckets: [1, 2], fingerprint: Buffer.alloc(256).toString("base64") };
    await reports.record(ws, { ...report, label: "spam", reportedAt: at });
    await reports.record(ws, { ...report, label: "clean", reportedAt: at + 1 });
    expect(await ok("feedback", "stats", "--workspace", ws)).toMatchObject({
      reports: { spam: 1, clean: 1 },
      lastRetrainAt: new Date(at + 1).toISOString(),
      version: 2,
    });
    expect(await ok("feedback", "forget", "--workspace", ws)).toEqual({
      workspaceId: ws,
      forgotten: true,
      version: 3,
    });
    expect(await ok("feedback", "stats", "--workspace", ws)).toMatchObject({
      reports: { spam: 0, clean: 0 },
      version: 3,
    });
  });

  it("turns report sharing on and off with workspace set", async () => {
    const ws = await newWorkspace();
    expect(await ok("workspace", "set", "--workspace", ws, "--share-reports", "on")).toEqual({
      workspaceId: ws,
      shareReports: true,
    });
    expect(await reports.shares(ws)).toBe(true);
    await ok("workspace", "set", "--workspace", ws, "--share-reports", "off", "--allowance", "5");
    expect(await reports.shares(ws)).toBe(false);
    expect((await keystore.getWorkspace(ws))?.allowance).toBe(5);
    expect((await cli("workspace", "set", "--workspace", ws, "--share-reports", "maybe")).code).toBe(2);
  });

  it("takes a workspace out of the network and back with workspace set, in its key records too", async () => {
    const ws = await newWorkspace();
    const created = await keystore.createConfig(ws, "classify");
    const network = async () => (await keystore.resolve(created!.secretKey))?.network;
    expect(await network()).toEqual({ on: true, since: (await keystore.getWorkspace(ws))!.createdAt });
    expect(await ok("workspace", "set", "--workspace", ws, "--network", "off")).toEqual({
      workspaceId: ws,
      network: false,
    });
    expect((await keystore.getWorkspace(ws))?.network).toBe(false);
    expect((await network())?.on).toBe(false);
    await ok("workspace", "set", "--workspace", ws, "--network", "on");
    expect((await network())?.on).toBe(true);
    expect((await cli("workspace", "set", "--workspace", ws, "--network", "maybe")).code).toBe(2);
  });

  it("sets a workspace's strictness with workspace set, bumping its version so workers reload", async () => {
    const ws = await newWorkspace();
    expect((await ok("feedback", "stats", "--workspace", ws)).strictness).toBe("balanced");
    const before = await reports.version(ws);
    expect(await ok("workspace", "set", "--workspace", ws, "--strictness", "strict")).toEqual({
      workspaceId: ws,
      strictness: "strict",
    });
    expect(await reports.strictness(ws)).toBe("strict");
    expect((await reports.snapshot(ws)).strictness).toBe("strict");
    expect(await reports.version(ws)).toBeGreaterThan(before);
    await ok("workspace", "set", "--workspace", ws, "--strictness", "balanced");
    expect(await reports.strictness(ws)).toBe("balanced");
    const refused = await cli("workspace", "set", "--workspace", ws, "--strictness", "paranoid");
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/strictness/);
  });

  it("sets a workspace's languages with workspace set, clears them with an empty value, and refuses a code ISO 639-1 lacks", async () => {
    const ws = await newWorkspace();
    expect(await ok("workspace", "set", "--workspace", ws, "--languages", "es, EN")).toEqual({
      workspaceId: ws,
      languages: ["es", "en"],
    });
    expect(await reports.expectedLanguages(ws)).toEqual(["es", "en"]);
    const refused = await cli(
      "workspace",
      "set",
      "--workspace",
      ws,
      "--languages",
      "es,xx",
      "--strictness",
      "strict",
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/languages\.1: "xx" is not an ISO 639-1 language code/);
    // Refused as a whole: the strictness beside it was not set either.
    expect(await reports.settings(ws)).toEqual({
      strictness: "balanced",
      shareReports: false,
      languages: ["es", "en"],
    });
    await ok("workspace", "set", "--workspace", ws, "--languages", "");
    expect(await reports.expectedLanguages(ws)).toEqual([]);
  });
});

describe("sift list import", () => {
  const file = (text: string) => {
    const path = join(mkdtempSync(join(tmpdir(), "sift-import-")), "lists.csv");
    writeFileSync(path, text);
    return path;
  };

  it("adds a CSV file's entries, as the console's export writes it, and counts the new ones", async () => {
    const ws = await newWorkspace();
    await ok("list", "add", "--workspace", ws, "--block", "--type", "domain", "old.example");
    const csv =
      "kind,type,value,added_by,added_at\nblock,domain,old.example,,\nallow,email,Ann@Shop.Example,,\n";
    expect(await ok("list", "import", "--workspace", ws, "--file", file(csv))).toEqual({
      workspaceId: ws,
      entries: 2,
      added: 1,
    });
    expect((await reports.lists(ws)).map((e) => e.value)).toEqual(["ann@shop.example", "old.example"]);
  });

  it("imports nothing from a file with a bad line, naming every bad line, and exits 2", async () => {
    const ws = await newWorkspace();
    const result = await cli(
      "list",
      "import",
      "--workspace",
      ws,
      "--file",
      file("block,domain,good.example\ndeny,domain,a.example\nblock,email,nobody\n"),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("line 2: the list is “deny”");
    expect(result.stderr).toContain("line 3: “nobody” is not a valid email");
    expect(await reports.lists(ws)).toEqual([]);
  });

  it("answers a file it cannot read with exit 2, and a workspace that does not exist with exit 1", async () => {
    const ws = await newWorkspace();
    const missing = await cli("list", "import", "--workspace", ws, "--file", "/nonexistent/lists.csv");
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringContaining("cannot read /nonexistent/lists.csv"),
    ]);
    const nowhere = await cli(
      "list",
      "import",
      "--workspace",
      "ws_nowhere",
      "--file",
      file("block,domain,a.example\n"),
    );
    expect([nowhere.code, nowhere.stderr]).toEqual([1, "sift list import: no workspace ws_nowhere\n"]);
  });
});
