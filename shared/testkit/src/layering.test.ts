import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ClassifyMessage, EdgeMessage, VERIFY_TOO_LARGE_TEXT, VerifyMessage } from "@sift/contracts";
import {
  domainOffences,
  findCycles,
  packageGraph,
  parseImports,
  productOnTooling,
  RUNTIME_PURE_MODULES,
  isIoModule,
  type Import,
} from "./layering.ts";

/**
 * The workspace's layering, checked on the source itself (every file of every package: src/,
 * scripts, demos, benches; tests only where a rule says so): packages meet only through their
 * exports, no module and no package imports a cycle, no product package depends on a tooling
 * package, a service's domain/ reaches no client, edge or I/O, and no answer text is spelled
 * outside the contracts. The rules themselves are in layering.ts.
 */
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const PACKAGE_DIRS = ["services", "shared"].flatMap((group) =>
  readdirSync(join(ROOT, group)).map((name) => join(ROOT, group, name)),
);

interface Package {
  dir: string;
  name: string;
  exports: Record<string, string>;
  dependencies: string[];
  devDependencies: string[];
}
const packages: Package[] = PACKAGE_DIRS.map((dir) => {
  const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    name: string;
    exports?: Record<string, string | Record<string, string>>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const exports = Object.fromEntries(
    Object.entries(json.exports ?? {}).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : [])),
  );
  return {
    dir,
    name: json.name,
    exports,
    dependencies: Object.keys(json.dependencies ?? {}),
    devDependencies: Object.keys(json.devDependencies ?? {}),
  };
});
const packageOf = (file: string): Package | undefined =>
  packages.find((p) => file === p.dir || file.startsWith(p.dir + sep));

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    if (entry === "node_modules" || entry === "dist") return [];
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(path) ? [path] : [];
  });
const files = [...PACKAGE_DIRS, join(ROOT, "infra")].flatMap(sourceFiles);
const isTest = (file: string) => file.endsWith(".test.ts") || file.includes(`${sep}test${sep}`);

const importCache = new Map<string, Import[]>();
const importsOf = (file: string): Import[] => {
  let imports = importCache.get(file);
  if (!imports) importCache.set(file, (imports = parseImports(readFileSync(file, "utf8"))));
  return imports;
};

const packageOfSpecifier = (specifier: string): Package | undefined =>
  packages.find((p) => specifier === p.name || specifier.startsWith(`${p.name}/`));

/** Where a workspace import lands, or undefined for a dependency outside the workspace. */
const resolveImport = (from: string, specifier: string): string | undefined => {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier);
  const pkg = packageOfSpecifier(specifier);
  if (!pkg) return undefined;
  const target = pkg.exports[`.${specifier.slice(pkg.name.length)}`];
  return target ? resolve(pkg.dir, target) : pkg.dir;
};

const DECLARES = (name: string) =>
  new RegExp(
    `export\\s+(?:declare\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:const|let|var|class|interface|type|function\\*?|enum)\\s+${name}\\b`,
  );
/** The file that defines `name`, following the re-exports from `file` (a package's entry). */
const definer = (file: string, name: string, seen = new Set<string>()): string | undefined => {
  if (seen.has(file) || !existsSync(file)) return undefined;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  if (DECLARES(name).test(source)) return file;
  for (const { specifier, names } of importsOf(file)) {
    if (!specifier.startsWith(".")) continue;
    const reexport = new RegExp(
      `export\\s+(?:type\\s+)?(?:\\{[^}]*\\}|\\*)\\s*from\\s+["']${specifier.replace(/\./g, "\\.")}["']`,
    );
    if (!reexport.test(source)) continue;
    if (names.length > 0 && !names.includes(name)) continue;
    const found = definer(resolve(dirname(file), specifier), name, seen);
    if (found) return found;
  }
  return undefined;
};

const runtime = packages.find((p) => p.name === "@sift/runtime")!;
const doesIo = (file: string): boolean =>
  (file.startsWith(runtime.dir + sep) && !RUNTIME_PURE_MODULES.some((m) => file === join(runtime.dir, m))) ||
  importsOf(file).some((i) => isIoModule(i.specifier));

describe("the workspace's layering", () => {
  it("has no relative import that reaches into another package", () => {
    // infra/ is not a package: its build script may be imported by the tooling's tests.
    const crossing = files.flatMap((file) =>
      importsOf(file)
        .map((i) => i.specifier)
        .filter((s) => s.startsWith("."))
        .filter((s) => {
          const target = packageOf(resolve(dirname(file), s));
          return target !== undefined && target !== packageOf(file);
        })
        .map((s) => `${relative(ROOT, file)} → ${s}`),
    );
    expect(crossing).toEqual([]);
  });

  it("has no import cycle between modules", () => {
    const edges = new Map<string, string[]>(
      files.map((file) => [
        file,
        importsOf(file)
          .map((i) => resolveImport(file, i.specifier))
          .filter((target): target is string => target !== undefined && target.endsWith(".ts")),
      ]),
    );
    expect(findCycles(edges).map((c) => c.map((f) => relative(ROOT, f)).join(" → "))).toEqual([]);
  });

  // Every package's non-test files (scripts, demos and benches included) and its package.json.
  const graph = packageGraph(
    packages.map((p) => ({
      name: p.name,
      dependencies: p.dependencies,
      devDependencies: p.devDependencies,
      imported: files
        .filter((f) => packageOf(f) === p && !isTest(f))
        .flatMap((f) => importsOf(f).map((i) => packageOfSpecifier(i.specifier)?.name ?? ""))
        .filter((name) => name !== ""),
    })),
  );

  it("has no cycle between packages", () => {
    // The graph is read: the benchmarks' package stands on the test kit, which stands on a service.
    expect(graph.get("@sift/bench")).toContain("@sift/testkit");
    expect(graph.get("@sift/testkit")).toContain("@sift/gateway");
    expect(findCycles(graph).map((c) => c.join(" → "))).toEqual([]);
  });

  it("keeps every tooling package out of the product packages", () => {
    expect(productOnTooling(graph)).toEqual([]);
  });

  it("keeps clients, the HTTP edge and I/O out of every service's domain/", () => {
    const domainFiles = files.filter(
      (f) => f.startsWith(join(ROOT, "services") + sep) && f.includes(`${sep}domain${sep}`) && !isTest(f),
    );
    expect(domainFiles.length).toBeGreaterThan(0);
    const offences = domainFiles.flatMap((file) => {
      const domainDir = file.slice(0, file.indexOf(`${sep}domain${sep}`) + `${sep}domain`.length);
      return domainOffences(importsOf(file), {
        resolveRelative: (s) => resolve(dirname(file), s),
        insideDomain: (path) => path.startsWith(domainDir + sep),
        definingFile: (specifier, name) => {
          const entry = resolveImport(file, specifier);
          if (entry === undefined) return undefined;
          return name === undefined ? entry : (definer(entry, name) ?? entry);
        },
        doesIo,
      }).map((why) => `${relative(ROOT, file)}: ${why}`);
    });
    expect(offences).toEqual([]);
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
