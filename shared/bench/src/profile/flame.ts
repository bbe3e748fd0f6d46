// A flame graph as a standalone SVG: the root at the bottom, each frame's width its share of
// the busy samples, callees stacked above their caller, siblings sorted by name (as Brendan
// Gregg's flame graphs are, so two graphs of the same code line up). Hover shows the frame, its
// source and its share in a <title>.
import type { StackNode } from "./cpuprofile.ts";

const WIDTH = 1200;
const ROW = 16;
const PAD = 10;
const TITLE_SPACE = 34;
/** Narrower than this (px) a frame is not drawn: it could not be seen or hovered anyway. */
const MIN_WIDTH = 0.3;
/** The 11 px monospace font's advance, so a label is cut where the box ends. */
const CHAR_PX = 6.6;

/** SVG text and attribute values: every character markup could read is escaped. */
export const escapeXml = (text: string): string =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");

/** Hue by where the code lives: ours warm, dependencies green, Node's own and V8's grey-blue. */
const colour = (node: StackNode): string => {
  const { location, name } = node;
  // A stable small jitter per name, so neighbours of one kind stay apart.
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const jitter = hash % 40;
  if (location.startsWith("services/") || location.startsWith("shared/"))
    return `hsl(${10 + jitter / 2},85%,${55 + (jitter % 15)}%)`;
  if (location.startsWith("node:") || location === "" || name.startsWith("("))
    return `hsl(210,${20 + jitter / 2}%,${62 + (jitter % 15)}%)`;
  return `hsl(${90 + jitter},45%,${52 + (jitter % 15)}%)`;
};

const label = (text: string, width: number): string => {
  const fits = Math.floor((width - 6) / CHAR_PX);
  if (fits < 3) return "";
  return text.length <= fits ? text : `${text.slice(0, fits - 2)}..`;
};

/** Rows needed for the frames wide enough to draw (`minTotal` samples or more). */
const depthOf = (node: StackNode, minTotal: number): number => {
  if (node.total < minTotal) return 0;
  let depth = 0;
  for (const child of node.children.values()) depth = Math.max(depth, depthOf(child, minTotal));
  return depth + 1;
};

/** The SVG of `root` (its total is 100 %), titled `title`. */
export const flameGraph = (root: StackNode, title: string): string => {
  const scale = (WIDTH - PAD * 2) / Math.max(1, root.total);
  const depth = depthOf(root, MIN_WIDTH / scale);
  const height = depth * ROW + TITLE_SPACE + PAD * 2;
  const rects: string[] = [];
  const draw = (node: StackNode, x: number, level: number) => {
    const width = node.total * scale;
    if (width < MIN_WIDTH) return;
    const y = height - PAD - (level + 1) * ROW;
    const share = ((node.total / root.total) * 100).toFixed(2);
    const selfShare = ((node.self / root.total) * 100).toFixed(2);
    const where = node.location ? ` (${node.location})` : "";
    const tip = `${node.name}${where}: ${share} % total, ${selfShare} % self, ${node.total} samples`;
    rects.push(
      `<g><title>${escapeXml(tip)}</title>` +
        `<rect x="${x.toFixed(2)}" y="${y}" width="${width.toFixed(2)}" height="${ROW - 1}" fill="${colour(node)}" rx="2"/>` +
        `<text x="${(x + 3).toFixed(2)}" y="${y + ROW - 4}">${escapeXml(label(node.name, width))}</text></g>`,
    );
    let childX = x;
    const children = [...node.children.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const child of children) {
      draw(child, childX, level + 1);
      childX += child.total * scale;
    }
  };
  draw(root, PAD, 0);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    `<style>text{font:11px monospace;fill:#000;pointer-events:none}rect:hover{stroke:#000;stroke-width:0.6}</style>`,
    `<rect width="100%" height="100%" fill="#fafaf7"/>`,
    `<text x="${PAD}" y="${PAD + 14}" style="font-size:14px">${escapeXml(title)}</text>`,
    ...rects,
    `</svg>`,
    "",
  ].join("\n");
};
