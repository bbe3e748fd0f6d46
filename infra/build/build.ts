// Bundles each service's src/main.ts into services/<name>/dist/main.js with esbuild:
//   tsx infra/build/build.ts [gateway verify classify model-worker console management cli]   (default: all)
// Workspace packages (@sift/*) are inlined; npm packages stay external and are installed beside
// the bundle (the image runs `pnpm deploy --prod`), so every one the bundle imports must be in
// that package's "dependencies": the build fails when one is missing. Files the code finds with
// `new URL("<relative path>", import.meta.url)` (the model, the browser bundle) are copied into
// dist/assets/ and the URL rewritten, so the bundle finds them wherever dist/ is copied to.
import { cpSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Metafile, Plugin } from "esbuild";
import { build } from "esbuild";
import { buildBrowserBundle } from "@sift/browser";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** What `pnpm build` bundles: every service, and the CLI (operators run it inside an image). */
export const TARGETS = {
  gateway: "services/gateway",
  verify: "services/verify",
  classify: "services/classify",
  "model-worker": "services/model-worker",
  console: "services/console",
  management: "services/management",
  cli: "shared/cli",
} as const;
export type Target = keyof typeof TARGETS;

const ASSET_URL = /new URL\(\s*(["'])([^"'`]+)\1\s*,\s*import\.meta\.url\s*\)/g;
// Left in the source after the rewrite, these would resolve against dist/ and miss their file.
const UNREWRITABLE = /import\.meta\.(dirname|filename)|fileURLToPath\(\s*import\.meta\.url\s*\)/;

const isWorkspaceFile = (path: string): boolean =>
  path.startsWith(ROOT) && !path.includes(`${sep}node_modules${sep}`) && /\.[cm]?ts$/.test(path);

/** The workspace package folder (holding package.json) that contains `file`. */
const packageRoot = (file: string): string => {
  let dir = dirname(file);
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return dir;
};

/** npm packages stay imports; @sift/* and relative paths are bundled. */
const externalNpm: Plugin = {
  name: "external-npm",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith("@sift/") || args.path.startsWith("node:")) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** Copies `new URL("…", import.meta.url)` targets into outdir/assets and points the URL there. */
const assets = (outdir: string, copied: Set<string>): Plugin => ({
  name: "import-meta-assets",
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (!isWorkspaceFile(args.path)) return undefined;
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta")) return undefined;
      const pkg = packageRoot(args.path);
      const contents = source.replace(ASSET_URL, (_all, _quote: string, rel: string) => {
        const target = resolve(dirname(args.path), rel);
        if (!existsSync(target)) {
          throw new Error(
            `${relative(ROOT, args.path)} refers to ${relative(ROOT, target)}, which does not exist ` +
              `(build what makes it first: pnpm build runs packages in dependency order)`,
          );
        }
        if (!target.startsWith(`${pkg}${sep}`)) {
          throw new Error(`${relative(ROOT, args.path)} refers to ${rel}, outside its package: not copied`);
        }
        // assets/<package folder name>/<path inside the package>: unique and readable.
        const inside = `assets/${pkg.split(sep).at(-1)}/${relative(pkg, target).split(sep).join("/")}`;
        cpSync(target, join(outdir, inside), { recursive: statSync(target).isDirectory() });
        copied.add(inside);
        return `new URL(${JSON.stringify(`./${inside}${rel.endsWith("/") ? "/" : ""}`)}, import.meta.url)`;
      });
      if (UNREWRITABLE.test(contents)) {
        throw new Error(
          `${relative(ROOT, args.path)} finds a file relative to its own path in a way the build ` +
            `cannot follow; use new URL("<relative path>", import.meta.url) so the file is copied`,
        );
      }
      return { contents, loader: "ts", resolveDir: dirname(args.path) };
    });
  },
});

/** Bare package names the bundle imports (node builtins aside): `lodash/fp` → `lodash`. */
export const externalPackages = (metafile: Metafile): string[] => {
  const names = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path, external } of output.imports) {
      if (!external || path.startsWith("node:")) continue;
      const parts = path.split("/");
      names.add(path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
    }
  }
  return [...names].sort();
};

export interface Built {
  target: Target;
  outfile: string;
  bytes: number;
  externals: string[];
  assets: string[];
  ms: number;
}

export const buildTarget = async (target: Target): Promise<Built> => {
  const started = performance.now();
  const dir = join(ROOT, TARGETS[target]);
  const outdir = join(dir, "dist");
  const outfile = join(outdir, "main.js");
  // Only what this build writes: the browser package's dist/ is another build's output.
  rmSync(join(outdir, "assets"), { recursive: true, force: true });
  const copied = new Set<string>();
  const result = await build({
    entryPoints: [join(dir, "src/main.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    // Names in stack traces and pino's error serialiser stay readable; size is not the goal.
    minify: false,
    metafile: true,
    logLevel: "warning",
    plugins: [externalNpm, assets(outdir, copied)],
  });
  const externals = externalPackages(result.metafile);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const missing = externals.filter((name) => !manifest.dependencies?.[name]);
  if (missing.length > 0) {
    throw new Error(
      `${TARGETS[target]}: the bundle imports ${missing.join(", ")}, not in its package.json ` +
        `"dependencies"; the image installs only those (pnpm deploy --prod), so add them there`,
    );
  }
  return {
    target,
    outfile,
    bytes: statSync(outfile).size,
    externals,
    assets: [...copied].sort(),
    ms: Math.round(performance.now() - started),
  };
};

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(name in TARGETS));
  if (unknown.length > 0) {
    console.error(`build: unknown target ${unknown.join(", ")}; known: ${Object.keys(TARGETS).join(", ")}`);
    process.exit(2);
  }
  const targets = (asked.length > 0 ? asked : Object.keys(TARGETS)) as Target[];
  // The gateway serves the browser bundle and copies it into its dist/, so it is built first.
  if (targets.includes("gateway")) {
    const browser = await buildBrowserBundle();
    console.log(`${relative(ROOT, browser.path)}: ${(browser.bytes / 1024).toFixed(0)} KiB`);
  }
  for (const target of targets) {
    const built = await buildTarget(target);
    console.log(
      `${relative(ROOT, built.outfile)}: ${(built.bytes / 1024).toFixed(0)} KiB in ${built.ms} ms; ` +
        `external: ${built.externals.join(" ")}${built.assets.length ? `; assets: ${built.assets.join(" ")}` : ""}`,
    );
  }
}
