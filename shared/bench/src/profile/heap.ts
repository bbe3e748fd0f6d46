// A V8 heap snapshot summarised as DevTools' "Summary" view does: objects grouped by constructor,
// each group's shallow size and retained size (what would be freed with it). Retained sizes come
// from the dominator tree (Cooper, Harvey and Kennedy's iterative algorithm over reverse
// postorder), weak edges left out as DevTools leaves them out.
import { readFileSync } from "node:fs";

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface HeapGroup {
  name: string;
  count: number;
  shallow: number;
  retained: number;
}

export interface HeapSummary {
  totalBytes: number;
  nodes: number;
  groups: HeapGroup[];
}

export const summariseHeap = (path: string): HeapSummary => {
  const snap = JSON.parse(readFileSync(path, "utf8")) as Snapshot;
  const { meta } = snap.snapshot;
  const nf = meta.node_fields.length;
  const ef = meta.edge_fields.length;
  const [typeAt, nameAt, sizeAt, edgeCountAt] = ["type", "name", "self_size", "edge_count"].map((f) =>
    meta.node_fields.indexOf(f),
  ) as [number, number, number, number];
  const [edgeTypeAt, toAt] = ["type", "to_node"].map((f) => meta.edge_fields.indexOf(f)) as [number, number];
  const nodeTypes = meta.node_types[0];
  const weak = meta.edge_types[0].indexOf("weak");
  const count = snap.nodes.length / nf;

  // Successors (strong edges only) in CSR form, and each node's first edge.
  const firstEdge = new Uint32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += snap.nodes[i * nf + edgeCountAt]! * ef;
    firstEdge[i + 1] = e;
  }
  const successors = (i: number, visit: (j: number) => void) => {
    for (let e = firstEdge[i]!; e < firstEdge[i + 1]!; e += ef) {
      if (snap.edges[e + edgeTypeAt] === weak) continue;
      visit(snap.edges[e + toAt]! / nf);
    }
  };

  // Reverse postorder from the root (node 0), iteratively.
  const order = new Int32Array(count).fill(-1);
  const postorder: number[] = [];
  const seen = new Uint8Array(count);
  const stack: number[] = [0];
  const cursor = new Uint32Array(count);
  seen[0] = 1;
  for (let i = 0; i < count; i++) cursor[i] = firstEdge[i]!;
  while (stack.length) {
    const top = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[top]! < firstEdge[top + 1]!) {
      const e = cursor[top]!;
      cursor[top] = e + ef;
      if (snap.edges[e + edgeTypeAt] === weak) continue;
      const next = snap.edges[e + toAt]! / nf;
      if (!seen[next]) {
        seen[next] = 1;
        stack.push(next);
        pushed = true;
        break;
      }
    }
    if (!pushed) {
      stack.pop();
      order[top] = postorder.length;
      postorder.push(top);
    }
  }
  const predecessors: number[][] = Array.from({ length: count }, () => []);
  for (const i of postorder) successors(i, (j) => predecessors[j]!.push(i));

  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (order[a]! < order[b]!) a = idom[a]!;
      while (order[b]! < order[a]!) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let k = postorder.length - 2; k >= 0; k--) {
      const node = postorder[k]!;
      let candidate = -1;
      for (const p of predecessors[node]!) {
        if (idom[p] === -1) continue;
        candidate = candidate === -1 ? p : intersect(p, candidate);
      }
      if (candidate !== -1 && idom[node] !== candidate) {
        idom[node] = candidate;
        changed = true;
      }
    }
  }

  // Retained size: own size plus the dominated nodes', children before parents (postorder).
  const retained = new Float64Array(count);
  for (const i of postorder) retained[i]! += snap.nodes[i * nf + sizeAt]!;
  for (const i of postorder) if (i !== 0) retained[idom[i]!]! += retained[i]!;

  const groupOf = (i: number): string => {
    const type = nodeTypes[snap.nodes[i * nf + typeAt]!]!;
    const name = snap.strings[snap.nodes[i * nf + nameAt]!]!;
    if (type === "object" || type === "native") return name.split(" ")[0] || `(${type})`;
    if (type === "closure") return "(closure)";
    return `(${type})`;
  };
  // A group's retained size counts only its members no other member dominates (DevTools' rule).
  const children: number[][] = Array.from({ length: count }, () => []);
  for (const i of postorder) if (i !== 0) children[idom[i]!]!.push(i);
  const groups = new Map<string, HeapGroup>();
  const openGroups = new Map<string, number>();
  const walk: Array<[number, boolean]> = [[0, false]];
  while (walk.length) {
    const [i, leaving] = walk.pop()!;
    const name = groupOf(i);
    if (leaving) {
      openGroups.set(name, openGroups.get(name)! - 1);
      continue;
    }
    const group = groups.get(name) ?? { name, count: 0, shallow: 0, retained: 0 };
    group.count++;
    group.shallow += snap.nodes[i * nf + sizeAt]!;
    if (!openGroups.get(name)) group.retained += retained[i]!;
    groups.set(name, group);
    openGroups.set(name, (openGroups.get(name) ?? 0) + 1);
    walk.push([i, true]);
    for (const c of children[i]!) walk.push([c, false]);
  }
  groups.delete("(synthetic)");
  return {
    totalBytes: retained[0]!,
    nodes: postorder.length,
    groups: [...groups.values()].sort((a, b) => b.retained - a.retained),
  };
};
