import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ClassifyMessage, EdgeMessage, VERIFY_TOO_LARGE_TEXT, VerifyMessage } from "@sift/contracts";

/**
 * The workspace's layering, checked on the source itself: packages meet only through their
 * exports (no relative import into another package), modules import no cycle, product code
 * never imports the tooling package, and no answer text is spelled outside the contracts.
 */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const PACKAGE_DIRS = ["services", "shared"].flatMap((group) =>
  readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)),
);

interface Package {
  dir: string;
  name: string;
  exports: Record<string, string>;
}
const packages: Package[] = PACKAGE_DIRS.map((dir) => {
  const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    exports?: Record<string, string>;
  };
  return { dir, name: json.name, exports: json.exports ?? {} };
});
const packageOf = (file: string): Package | undefined =>
  packages.find((p) => file === p.dir || file.startsWith(p.dir + sep));

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    if (entry === "node_modules" || entry === "dist") return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
const files = [...PACKAGE_DIRS, join(ROOT, "infra")].flatMap(sourceFiles);
const isTest = (file: string) => file.endsWith(".test.ts") || file.includes(`${sep}test${sep}`);

/** Static import and re-export specifiers (type-only ones too: they are layering all the same). */
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']/g;
const importsOf = (file: string): string[] =>
  [...readFileSync(file, "utf8").matchAll(SPECIFIER)].map((m) => m[1]!);

/** Where a workspace import lands, or undefined for a dependency outside the workspace. */
const resolveImport = (from: string, specifier: string): string | undefined => {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  const pkg = packages.find((p) => specifier === p.name || specifier.startsWith(`${p.name}/`));
  if (!pkg) return undefined;
  const target = pkg.exports[`.${specifier.slice(pkg.name.length)}`];
  return target ? resolve(pkg.dir, target) : pkg.dir;
};

describe("the workspace's layering", () => {
  it("has no relative import that reaches into another package", () => {
    // infra/ is not a package: its build script may be imported by the tooling's tests.
    const crossing = files.flatMap((file) =>
      importsOf(file)
        .filter((s) => s.startsWith("."))
        .filter((s) => {
          const target = packageOf(resolve(dirname(file), s));
          return target !== undefined && target !== packageOf(file);
        })
        .map((s) => `${relative(ROOT, file)} → ${s}`),
    );
    expect(crossing).toEqual([]);
  });

  it("keeps the tooling package out of product code", () => {
    const product = files.filter((f) => f.includes(`${sep}src${sep}`) && !isTest(f));
    const offenders = product
      .filter((f) => packageOf(f)?.name !== "@sift/testkit")
      .filter((f) => importsOf(f).some((s) => s === "@sift/testkit" || s.startsWith("@sift/testkit/")))
      .map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });

  it("has no import cycle between modules", () => {
    const edges = new Map<string, string[]>(
      files.map((file) => [
        file,
        importsOf(file)
          .map((s) => resolveImport(file, s))
          .filter((target): target is string => target !== undefined && target.endsWith(".ts")),
      ]),
    );
    const cycles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(ROOT, f)).join(" → "));
        return;
      }
      state.set(file, "open");
      for (const next of edges.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, "done");
    };
    for (const file of edges.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it("spells no answer text outside the contracts (tests aside)", () => {
    const texts = new Set<string>([
      ...Object.values(ClassifyMessage),
      ...Object.values(VerifyMessage),
      ...Object.values(EdgeMessage),
      VERIFY_TOO_LARGE_TEXT,
    ]);
    const contracts = join(ROOT, "shared", "contracts", "src");
    // The Node client is published on its own and cannot depend on the private contracts; its
    // types.test.ts checks that its copies equal these.
    const client = join(ROOT, "shared", "client");
    const spelled = files
      .filter((f) => !isTest(f) && !f.startsWith(contracts + sep) && !f.startsWith(client + sep))
      .flatMap((file) => {
        const source = readFileSync(file, "utf8");
        return [...texts]
          .filter((t) => [`"${t}"`, `'${t}'`].some((quoted) => source.includes(quoted)))
          .map((t) => `${relative(ROOT, file)}: ${t}`);
      });
    expect(spelled).toEqual([]);
  });
});
