import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { familyOf } from "./rules/families.ts";
import { requiredLiterals } from "./rules/literals.ts";
import { portPerl } from "./rules/perl-regex.ts";

/**
 * `pnpm rules:compile [--rules /usr/share/spamassassin]`: reads Debian's SpamAssassin rule files
 * (package `spamassassin`, Apache-2.0), ports every `body` regular expression (scored rules and
 * `__` sub-rules alike) that JavaScript can read with the same meaning, keys each on a literal it
 * cannot match without, and writes `shared/model/rules/spamassassin/body-rules.json` with the
 * package's version, the rules that were not ported and why, the licence and the notice. A
 * deployment reads that file, never the Debian package. Scores, descriptions and meta rules are
 * not read: the model learns its own weight per family.
 */
const { values } = parseArgs({ options: { rules: { type: "string", default: "/usr/share/spamassassin" } } });
const dir = resolve(values.rules!);
const version = execFileSync("dpkg-query", ["-W", "-f", "${Version}", "spamassassin"], { encoding: "utf8" });

interface Rule {
  name: string;
  family: string;
  source: string;
  flags: string;
  keys: string[];
}
const rules: Rule[] = [];
const notPorted: Array<{ name: string; file: string; reason: string }> = [];
const seen = new Set<string>();
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".cf"))
  .sort()) {
  // Read as bytes: the rules match bytes, and "latin1" keeps each byte one character.
  for (const line of readFileSync(join(dir, file), "latin1").split("\n")) {
    const m = /^\s*body\s+(\S+)\s+(.+?)\s*$/.exec(line);
    if (!m) continue;
    const [, name, written] = m as unknown as [string, string, string];
    // A later definition of a name replaces an earlier one, as in SpamAssassin; the first is kept
    // here since the files' later copies are the same rule behind another plugin's test.
    if (seen.has(name)) continue;
    seen.add(name);
    if (written.startsWith("eval:")) {
      notPorted.push({ name, file, reason: "eval: a plugin's Perl code, not a pattern" });
      continue;
    }
    if (/<(?:inter |post )?[A-Z0-9]+>/.test(written)) {
      notPorted.push({ name, file, reason: "ReplaceTags look-alike letters: no literal to key it on" });
      continue;
    }
    const ported = portPerl(written);
    if (!ported.ok) {
      notPorted.push({ name, file, reason: ported.reason });
      continue;
    }
    const keys = requiredLiterals(ported.source);
    if (!keys) {
      notPorted.push({
        name,
        file,
        reason: "no literal of 4 characters it needs: it would cost a pass over every text",
      });
      continue;
    }
    rules.push({ name, family: familyOf(name, file), source: ported.source, flags: ported.flags, keys });
  }
}
// @sift/model's SPAMASSASSIN_RULES_DIR, spelled here: importing it would load the file being made.
const out = fileURLToPath(new URL("../../model/rules/spamassassin/", import.meta.url));
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, "body-rules.json"),
  `${JSON.stringify({ package: `spamassassin ${version} (Debian)`, licence: "Apache-2.0", rules, notPorted }, null, 1)}\n`,
);
copyFileSync("/usr/share/common-licenses/Apache-2.0", join(out, "LICENSE"));
copyFileSync("/usr/share/doc/spamassassin/NOTICE", join(out, "NOTICE"));
const families = new Map<string, number>();
for (const r of rules) families.set(r.family, (families.get(r.family) ?? 0) + 1);
console.log(
  `spamassassin ${version}: ${rules.length} body rules compiled (${[...families].map(([f, n]) => `${f} ${n}`).join(", ")}), ${notPorted.length} not ported; wrote ${out}`,
);
