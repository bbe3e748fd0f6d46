const W = new URL("../src", import.meta.url).pathname;
const { chooseRows, translatedSources } = await import(`${W}/translate/translations.ts`);
const { loadSource } = await import(`${W}/data/sources.ts`);
import { readFileSync } from "node:fs";
const dir = process.argv[2]!;
let rows = 0, extra = 0; const ex: string[] = [];
for (const s of translatedSources()) {
  const file = JSON.parse(readFileSync(`${dir}/${s}.json`, "utf8"));
  for (const c of chooseRows(s, loadSource("/work/shared/data", s))) {
    const src = new Set((c.line.match(/[#@*~]\p{L}[\p{L}\d_]*/gu) ?? []).map((m: string) => m.slice(1).toLowerCase()));
    for (const l of c.langs) {
      const t = file.translations[c.key]?.[l]; if (!t) continue; rows++;
      const marks = (t.match(/(?<![\p{L}\d])[#@*~]\p{L}[\p{L}\d_]*/gu) ?? []).filter((m: string) => !src.has(m.slice(1).toLowerCase()));
      if (marks.length) { extra++; if (ex.length < 400 && Math.random() < 0.05) ex.push(`${s} ${l}: ${marks.join(" ")} | ${c.line.slice(0, 120)}`); }
    }
  }
}
console.log(`${extra} of ${rows} translations hold a #, @, * or ~ word that their English line does not`);
for (const e of ex.slice(0, 25)) console.log(e.slice(0, 200));
