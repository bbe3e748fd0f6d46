// Reads a V8 .cpuprofile (what `node --cpu-prof` writes) into frames named by their source:
// a bundle's positions are mapped back through its source map (node:module's SourceMap), so a
// frame reads `services/gateway/src/app.ts:40`, not `dist/main.js:1234`.
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One node of the call tree, frames merged by name; `self` and `total` in samples. */
export interface StackNode {
  name: string;
  location: string;
  self: number;
  total: number;
  children: Map<string, StackNode>;
}

export interface FrameFigure {
  name: string;
  location: string;
  self: number;
  total: number;
}

export interface ProfileSummary {
  /** Samples while the process ran JavaScript, GC or native code (idle excluded). */
  busy: number;
  idle: number;
  /** Milliseconds one sample stands for on average. */
  sampleMs: number;
  root: StackNode;
  /** Every frame (function at its location), self and total in samples; recursion counted once. */
  frames: FrameFigure[];
}

/** Where the repository's paths start, so a location reads relative to it. */
const shortPath = (path: string, root: string): string => {
  const rel = path.startsWith(root) ? path.slice(root.length) : path;
  const modules = rel.lastIndexOf("node_modules/");
  if (modules < 0) return rel;
  // pnpm's store path: node_modules/.pnpm/<pkg>@<v>/node_modules/<pkg>/… → <pkg>/…
  return rel.slice(modules + "node_modules/".length);
};

const sourceMaps = new Map<string, SourceMap | undefined>();
const mapFor = (mapFile: string): SourceMap | undefined => {
  if (!sourceMaps.has(mapFile)) {
    let map: SourceMap | undefined;
    try {
      map = new SourceMap(JSON.parse(readFileSync(mapFile, "utf8")) as never);
    } catch {
      map = undefined;
    }
    sourceMaps.set(mapFile, map);
  }
  return sourceMaps.get(mapFile);
};

/** `file:line` of a frame (1-based line), through the bundle's source map when it has one. */
const locate = (frame: CallFrame, root: string, mapDir: string | undefined): string => {
  if (!frame.url) return "";
  if (!frame.url.startsWith("file://")) return `${frame.url}:${frame.lineNumber + 1}`;
  const file = fileURLToPath(frame.url);
  // The map the run kept beside the profile (the build may have changed since), else the build's.
  const kept = mapDir && file.endsWith("/dist/main.js") ? `${mapDir}/main.js.map` : undefined;
  const map = file.includes("/dist/") ? mapFor(kept && existsSync(kept) ? kept : `${file}.map`) : undefined;
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
    { originalSource?: string; originalLine?: number } | undefined;
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    const source = entry.originalSource.startsWith("file://")
      ? fileURLToPath(entry.originalSource)
      : new URL(entry.originalSource, frame.url).pathname;
    return `${shortPath(source, root)}:${entry.originalLine + 1}`;
  }
  return `${shortPath(file, root)}:${frame.lineNumber + 1}`;
};

const IDLE = "(idle)";

/**
 * `leaveOut`: frames whose whole subtree is dropped, as if never sampled (the heap snapshot the
 * profile run asks for mid-load is the run's own work, not the service's).
 */
export const readProfile = (path: string, repoRoot: string, leaveOut: string[] = []): ProfileSummary => {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const elapsedUs = profile.timeDeltas.reduce((a, b) => a + b, 0);

  const frames = new Map<string, FrameFigure>();
  const root: StackNode = { name: "all", location: "", self: 0, total: 0, children: new Map() };
  let idle = 0;
  // Depth first from V8's root; `open` counts the frames already on the stack, so a recursive
  // function's total counts each sample once.
  const open = new Map<string, number>();
  const walk = (node: ProfileNode, parent: StackNode): number => {
    const name = node.callFrame.functionName || "(anonymous)";
    const location = locate(node.callFrame, repoRoot, dirname(path));
    const key = `${name} ${location}`;
    const self = hits.get(node.id) ?? 0;
    if (name === IDLE) {
      idle += self;
      return 0;
    }
    if (leaveOut.includes(name)) return 0;
    let stack = parent.children.get(key);
    if (!stack) {
      stack = { name, location, self: 0, total: 0, children: new Map() };
      parent.children.set(key, stack);
    }
    open.set(key, (open.get(key) ?? 0) + 1);
    let total = self;
    for (const child of node.children ?? []) total += walk(byId.get(child)!, stack);
    open.set(key, open.get(key)! - 1);
    stack.self += self;
    stack.total += total;
    const figure = frames.get(key) ?? { name, location, self: 0, total: 0 };
    figure.self += self;
    if (open.get(key) === 0) figure.total += total;
    frames.set(key, figure);
    return total;
  };
  // V8's "(root)" frame holds everything; its children are the tree's first level.
  const top = profile.nodes[0]!;
  for (const child of top.children ?? []) root.total += walk(byId.get(child)!, root);
  const busy = root.total;
  return {
    busy,
    idle,
    sampleMs: profile.samples.length ? elapsedUs / 1000 / profile.samples.length : 0,
    root,
    frames: [...frames.values()].sort((a, b) => b.self - a.self),
  };
};
