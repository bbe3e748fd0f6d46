import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { ApertiumMissing } from "./translate/apertium.ts";
import { defaultCacheDir, ensureTranslations } from "./translate/translations.ts";

/**
 * `pnpm data:translate --data ../shared/data [--out dir]`: translates a hash-drawn sample of the
 * trainable sources' English rows into Spanish, Portuguese, Italian, Catalan, Romanian and
 * Galician with Debian's Apertium (translate/), into a cache outside the repository
 * (`~/.cache/sift/translations` unless named). What is already there and current is kept, so a
 * second run translates nothing. `pnpm train` and `pnpm eval` run the same step first.
 */
const { values } = parseArgs({
  options: {
    data: { type: "string", default: "../shared/data" },
    out: { type: "string" },
  },
});
const started = performance.now();
const log = (line: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(1)}s] ${line}`);
try {
  const summary = await ensureTranslations(
    resolve(values.data!),
    resolve(values.out ?? defaultCacheDir()),
    log,
  );
  for (const s of summary.sources)
    log(
      `${s.source}: ${s.rows} rows, ${Object.entries(s.perLang)
        .map(([l, n]) => `${l} ${n}`)
        .join(", ")}`,
    );
  log(
    `apertium: ${Object.entries(summary.versions)
      .map(([p, v]) => `${p} ${v}`)
      .join(", ")}`,
  );
} catch (error) {
  if (!(error instanceof ApertiumMissing)) throw error;
  console.error(error.message);
  process.exit(2);
}
