/**
 * Line charts as standalone SVG (no plotting dependency): one line per series on a unit square,
 * with axes, a grid and a legend. Curves are thinned to at most 400 points per series.
 */
export interface Series {
  name: string;
  points: Array<[number, number]>;
}

const COLORS = [
  "#1f77b4",
  "#d62728",
  "#2ca02c",
  "#ff7f0e",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
  "#393b79",
  "#637939",
];
const W = 640,
  H = 440,
  L = 60,
  T = 30,
  PW = 380,
  PH = 360;

const thin = (points: Array<[number, number]>): Array<[number, number]> => {
  if (points.length <= 400) return points;
  const step = points.length / 400;
  const out: Array<[number, number]> = [];
  for (let i = 0; i < points.length; i += step) out.push(points[Math.floor(i)]!);
  out.push(points.at(-1)!);
  return out;
};

const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;");

export const lineChart = (
  title: string,
  xLabel: string,
  yLabel: string,
  series: readonly Series[],
  diagonal = false,
): string => {
  const x = (v: number) => (L + v * PW).toFixed(1);
  const y = (v: number) => (T + (1 - v) * PH).toFixed(1);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
  );
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  parts.push(`<text x="${L}" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`);
  for (let i = 0; i <= 10; i++) {
    const v = i / 10;
    parts.push(
      `<line x1="${x(v)}" y1="${y(0)}" x2="${x(v)}" y2="${y(1)}" stroke="#eee"/><line x1="${x(0)}" y1="${y(v)}" x2="${x(1)}" y2="${y(v)}" stroke="#eee"/>`,
    );
    if (i % 2 === 0) {
      parts.push(`<text x="${x(v)}" y="${T + PH + 14}" text-anchor="middle">${v.toFixed(1)}</text>`);
      parts.push(`<text x="${L - 6}" y="${Number(y(v)) + 4}" text-anchor="end">${v.toFixed(1)}</text>`);
    }
  }
  parts.push(`<rect x="${L}" y="${T}" width="${PW}" height="${PH}" fill="none" stroke="#333"/>`);
  if (diagonal)
    parts.push(
      `<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#aaa" stroke-dasharray="4 4"/>`,
    );
  parts.push(`<text x="${L + PW / 2}" y="${T + PH + 30}" text-anchor="middle">${esc(xLabel)}</text>`);
  parts.push(
    `<text transform="translate(16 ${T + PH / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const d = thin(s.points)
      .map(([px, py], k) => `${k === 0 ? "M" : "L"}${x(px)} ${y(py)}`)
      .join("");
    parts.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="1.6"/>`);
    parts.push(
      `<line x1="${L + PW + 14}" y1="${T + 10 + i * 18}" x2="${L + PW + 34}" y2="${T + 10 + i * 18}" stroke="${color}" stroke-width="3"/>`,
    );
    parts.push(`<text x="${L + PW + 40}" y="${T + 14 + i * 18}">${esc(s.name)}</text>`);
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
};

/** Histogram of scores by label in 20 bins, bars side by side, y as share of each label. */
export const histogram = (title: string, spam: readonly number[], ham: readonly number[]): string => {
  const bins = 20;
  const share = (values: readonly number[]) => {
    const counts = new Array<number>(bins).fill(0);
    for (const v of values) counts[Math.min(bins - 1, Math.floor(v * bins))]!++;
    return counts.map((c) => c / Math.max(values.length, 1));
  };
  const [s, h] = [share(spam), share(ham)];
  const top = Math.max(...s, ...h, 0.01);
  const bw = PW / bins;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
  );
  parts.push(
    `<rect width="${W}" height="${H}" fill="white"/><text x="${L}" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`,
  );
  for (let i = 0; i < bins; i++) {
    const hh = (h[i]! / top) * PH,
      sh = (s[i]! / top) * PH;
    parts.push(
      `<rect x="${(L + i * bw + 1).toFixed(1)}" y="${(T + PH - hh).toFixed(1)}" width="${(bw / 2 - 1).toFixed(1)}" height="${hh.toFixed(1)}" fill="#1f77b4"/>`,
    );
    parts.push(
      `<rect x="${(L + i * bw + bw / 2).toFixed(1)}" y="${(T + PH - sh).toFixed(1)}" width="${(bw / 2 - 1).toFixed(1)}" height="${sh.toFixed(1)}" fill="#d62728"/>`,
    );
  }
  for (let i = 0; i <= 10; i += 2)
    parts.push(
      `<text x="${(L + (i / 10) * PW).toFixed(1)}" y="${T + PH + 14}" text-anchor="middle">${(i / 10).toFixed(1)}</text>`,
    );
  parts.push(
    `<line x1="${L + 0.8 * PW}" y1="${T}" x2="${L + 0.8 * PW}" y2="${T + PH}" stroke="#333" stroke-dasharray="4 3"/>`,
  );
  parts.push(`<rect x="${L}" y="${T}" width="${PW}" height="${PH}" fill="none" stroke="#333"/>`);
  parts.push(
    `<text x="${L + PW / 2}" y="${T + PH + 30}" text-anchor="middle">score (dashed: threshold 0.8); bar height: share of each class, max ${(top * 100).toFixed(0)}%</text>`,
  );
  parts.push(
    `<rect x="${L + PW + 14}" y="${T + 4}" width="12" height="12" fill="#1f77b4"/><text x="${L + PW + 32}" y="${T + 14}">ham (${ham.length})</text>`,
  );
  parts.push(
    `<rect x="${L + PW + 14}" y="${T + 22}" width="12" height="12" fill="#d62728"/><text x="${L + PW + 32}" y="${T + 32}">spam (${spam.length})</text>`,
  );
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
};
