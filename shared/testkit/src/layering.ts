/**
 * The layering rules `layering.test.ts` holds the workspace to, as functions of plain data (a
 * package graph, a file's imports), so each rule is also tried on a small fabricated graph
 * (`layering-rules.test.ts`) and shown able to fail.
 */

/** Packages that only tests, benchmarks and training use: no product package may depend on one. */
export const TOOLING = new Set(["@sift/testkit", "@sift/bench", "@sift/training"]);

/**
 * What a `domain/` file may not reach: npm clients and servers, and Node's I/O builtins. Pure
 * computation (node:crypto, zod) is fine; time comes in as an injected clock.
 */
export const IO_MODULES = new Set([
  "ioredis",
  "nats",
  "bullmq",
  "onnxruntime-node",
  "express",
  "http-proxy-middleware",
  "pino",
  "prom-client",
  "fs",
  "fs/promises",
  "net",
  "http",
  "https",
  "http2",
  "dgram",
  "dns",
  "tls",
  "child_process",
  "cluster",
  "worker_threads",
]);
export const isIoModule = (specifier: string): boolean =>
  IO_MODULES.has(specifier.replace(/^node:/, "")) || specifier.startsWith("@opentelemetry/");

/**
 * `@sift/runtime` holds the clients, the logger, metrics, tracing, lifecycle and the HTTP edge:
 * a `domain/` file may take from it only what its clock module defines.
 */
export const RUNTIME_PURE_MODULES = ["src/clock.ts"];

export interface Import {
  specifier: string;
  /** The names taken (`import { a, type B }`, `export { a } from`); empty for `*`, default or bare. */
  names: string[];
}

const NAMED = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s+["']([^"']+)["']/g;
const OTHER = /(?:^|\n)\s*(?:import|export)\s+(?!(?:type\s+)?\{)[^'";]*?from\s+["']([^"']+)["']/g;
const BARE = /(?:^|\n)\s*import\s+["']([^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** Static imports and re-exports (type-only ones too: they are layering all the same), and `import("…")`. */
export const parseImports = (source: string): Import[] => [
  ...[...source.matchAll(NAMED)].map((m) => ({
    specifier: m[2]!,
    names: m[1]!
      .split(",")
      .map(
        (n) =>
          n
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0]!,
      )
      .filter((n) => n !== ""),
  })),
  ...[OTHER, BARE, DYNAMIC].flatMap((re) =>
    [...source.matchAll(re)].map((m) => ({ specifier: m[1]!, names: [] })),
  ),
];

/** Every cycle the directed graph holds, each as the path that closes it (first node repeated last). */
export const findCycles = (edges: ReadonlyMap<string, readonly string[]>): string[][] => {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (node: string, path: string[]) => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "open") {
      cycles.push([...path.slice(path.indexOf(node)), node]);
      return;
    }
    state.set(node, "open");
    for (const next of edges.get(node) ?? []) visit(next, [...path, node]);
    state.set(node, "done");
  };
  for (const node of edges.keys()) visit(node, []);
  return cycles;
};

export interface PackageFacts {
  name: string;
  dependencies: readonly string[];
  devDependencies: readonly string[];
  /** Workspace packages imported by the package's non-test files (scripts, demos, benches included). */
  imported: readonly string[];
}

/**
 * The package graph: what a package's non-test files import and what its package.json lists. A
 * devDependency on a tooling package is what the package's tests use, and tests are left out
 * (every service's tests start the stack that depends on the service).
 */
export const packageGraph = (packages: readonly PackageFacts[]): Map<string, string[]> => {
  const names = new Set(packages.map((p) => p.name));
  return new Map(
    packages.map((p) => {
      const targets = new Set([
        ...p.imported,
        ...p.dependencies,
        ...p.devDependencies.filter((d) => !TOOLING.has(d)),
      ]);
      return [p.name, [...targets].filter((t) => t !== p.name && names.has(t)).sort()];
    }),
  );
};

/** Each arrow from a product package to a tooling package, as `product → tooling`. */
export const productOnTooling = (graph: ReadonlyMap<string, readonly string[]>): string[] =>
  [...graph].flatMap(([from, targets]) =>
    TOOLING.has(from) ? [] : targets.filter((t) => TOOLING.has(t)).map((t) => `${from} → ${t}`),
  );

export interface DomainContext {
  /** The file a relative specifier lands on. */
  resolveRelative: (specifier: string) => string;
  /** Whether a path is inside the importing file's own `domain/` folder. */
  insideDomain: (path: string) => boolean;
  /**
   * For a workspace specifier and a name it exports (undefined: the whole module), the file that
   * defines it; undefined for a package outside the workspace.
   */
  definingFile: (specifier: string, name: string | undefined) => string | undefined;
  /** Whether a workspace file is a client, an edge or I/O (imports an I/O module, or is runtime's impure part). */
  doesIo: (file: string) => boolean;
}

/** Why a `domain/` file's imports reach a client, an edge or I/O; empty when they do not. */
export const domainOffences = (imports: readonly Import[], ctx: DomainContext): string[] =>
  imports.flatMap(({ specifier, names }) => {
    if (isIoModule(specifier)) return [`${specifier} (I/O module)`];
    if (specifier.startsWith(".")) {
      const target = ctx.resolveRelative(specifier);
      return ctx.insideDomain(target) ? [] : [`${specifier} (outside domain/)`];
    }
    return (names.length > 0 ? names : [undefined]).flatMap((name) => {
      const file = ctx.definingFile(specifier, name);
      return file !== undefined && ctx.doesIo(file)
        ? [`${name ?? "*"} from ${specifier} (client, edge or I/O)`]
        : [];
    });
  });
