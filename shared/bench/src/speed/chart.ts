// The SVG chart docs/benchmarks.md shows: for each measured target, its median throughput and
// its median p99 latency, as two bar panels side by side, Sift's bars dark and the twins light.

export interface ChartRow {
  label: string;
  rps: number;
  p99: number;
  /** A twin (bare chain, instant worker, service alone, raw model): drawn light. */
  twin: boolean;
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export const chartSvg = (rows: ChartRow[], title: string): string => {
  const labelWidth = 330;
  const panel = 260;
  const gap = 40;
  const rowHeight = 22;
  const top = 50;
  const width = labelWidth + 2 * panel + gap + 70;
  const height = top + rows.length * rowHeight + 20;
  const maxRps = Math.max(1, ...rows.map((r) => r.rps).filter(Number.isFinite));
  const maxP99 = Math.max(1, ...rows.map((r) => r.p99).filter(Number.isFinite));
  const bar = (x0: number, value: number, max: number, y: number, twin: boolean, text: string) => {
    const w = Number.isFinite(value) ? Math.max(1, (value / max) * panel) : 0;
    return (
      `<rect x="${x0}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" fill="${twin ? "#9ecae1" : "#08519c"}"/>` +
      `<text x="${(x0 + w + 4).toFixed(1)}" y="${y + rowHeight - 7}" font-size="11">${escape(text)}</text>`
    );
  };
  const rpsX = labelWidth;
  const p99X = labelWidth + panel + gap + 30;
  const body = rows
    .map((r, i) => {
      const y = top + i * rowHeight;
      return (
        `<text x="${labelWidth - 8}" y="${y + rowHeight - 7}" font-size="11" text-anchor="end">${escape(r.label)}</text>` +
        bar(
          rpsX,
          r.rps,
          maxRps,
          y,
          r.twin,
          Number.isFinite(r.rps) ? Math.round(r.rps).toLocaleString("en-US") : "-",
        ) +
        bar(p99X, r.p99, maxP99, y, r.twin, Number.isFinite(r.p99) ? `${r.p99.toFixed(1)} ms` : "-")
      );
    })
    .join("\n");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="20" font-size="14" font-weight="bold">${escape(title)}</text>
<text x="${rpsX}" y="${top - 10}" font-size="12" font-weight="bold">throughput (req/s, median)</text>
<text x="${p99X}" y="${top - 10}" font-size="12" font-weight="bold">p99 latency (ms, median)</text>
${body}
</svg>
`;
};
