import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The package as npm would ship it: built with its own build script into a copy, then loaded
 * by plain Node (not vitest) and type-checked from a consumer's project through `exports`.
 */
const run = promisify(execFile);
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
let work: string;
let pkg: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "sift-client-pack-"));
  pkg = join(work, "node_modules", "@sift", "client");
  await mkdir(pkg, { recursive: true });
  for (const name of ["package.json", "README.md", "LICENSE", "tsconfig.build.json", "src"]) {
    await cp(join(packageDir, name), join(pkg, name), { recursive: true });
  }
  // The build config extends the repository's base config, one level above the package's.
  await cp(join(packageDir, "../../tsconfig.base.json"), join(work, "node_modules", "tsconfig.base.json"));
  await run(process.execPath, [tsc, "-p", join(pkg, "tsconfig.build.json")]);
}, 60_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("the published package", () => {
  it("ships dist, the README and the licence, and no sources or tests", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: pkg });
    const files = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map(
      (f) => f.path,
    );
    expect(files).toEqual(
      expect.arrayContaining(["package.json", "README.md", "LICENSE", "dist/index.js", "dist/index.d.ts"]),
    );
    expect(
      files.filter((f) => !f.startsWith("dist/") && !["package.json", "README.md", "LICENSE"].includes(f)),
    ).toEqual([]);
    expect(files.some((f) => f.endsWith(".test.js") || f.endsWith(".test.d.ts"))).toBe(false);
    const manifest = JSON.parse(await readFile(join(pkg, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest["dependencies"]).toBeUndefined();
    expect(manifest["license"]).toBe("MIT");
  });

  it("loads in plain Node through its exports", async () => {
    const script =
      'import * as sift from "@sift/client";' +
      'const c = new sift.SiftClient({ baseUrl: "http://127.0.0.1:9", challengeKey: "k" });' +
      "const missing = await c.verify(undefined);" +
      "console.log(JSON.stringify({ names: Object.keys(sift).sort(), policy: c.policy, missing }));";
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: work });
    const out = JSON.parse(stdout) as { names: string[]; policy: unknown; missing: unknown };
    expect(out.names).toEqual(
      expect.arrayContaining([
        "SiftClient",
        "SiftError",
        "SPEC_OUTAGE_POLICY",
        "STRICT_OUTAGE_POLICY",
        "VerifyMessage",
      ]),
    );
    expect(out.policy).toEqual({
      classify: { cleanOnUnavailable: true },
      verify: { acceptOnNetworkFailure: true, acceptOnTimeout: true, acceptOnInternalError: true },
    });
    expect(out.missing).toEqual({ decidedBy: "client", accepted: false, cause: "missing-solution" });
  });

  it("gives a TypeScript consumer its types, and they catch a misuse", async () => {
    const consumer = join(work, "consumer");
    await mkdir(consumer);
    await symlink(join(work, "node_modules"), join(consumer, "node_modules"));
    const tsconfig = {
      compilerOptions: { module: "NodeNext", strict: true, noEmit: true, lib: ["ES2022", "DOM"] },
    };
    await writeFile(join(consumer, "tsconfig.json"), JSON.stringify(tsconfig));
    await writeFile(join(consumer, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(
      join(consumer, "ok.ts"),
      [
        'import { SiftClient, type ClassifyOutcome, type VerifyOutcome } from "@sift/client";',
        'const sift = new SiftClient({ baseUrl: "https://sift.example.com", classifyKey: "test" });',
        'const c: ClassifyOutcome = await sift.classify({ name: "Ann", tags: ["a", 1] });',
        'const label: "spam" | "clean" = c.label;',
        'if (c.decidedBy === "service") console.log(c.score.toFixed(2), label);',
        "const v: VerifyOutcome = await sift.verify(undefined);",
        "console.log(v.accepted);",
      ].join("\n"),
    );
    // A nested object as a field value is refused by the spec (2.1 rule 2): the types say so.
    await writeFile(
      join(consumer, "bad.ts"),
      'import { SiftClient } from "@sift/client";\n' +
        'await new SiftClient({ baseUrl: "x" }).classify({ address: { city: "Leeds" } });\n',
    );
    const failed = await run(process.execPath, [tsc, "-p", consumer]).catch((e: { stdout: string }) => e);
    const errors = (failed as { stdout: string }).stdout.trim().split("\n");
    // One error, in bad.ts; ok.ts (the client's ordinary use) type-checks.
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/consumer\/bad\.ts\(2,\d+\): error TS\d+: .*'city'/);
  });
});
