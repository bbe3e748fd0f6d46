import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LISTS_DIR, PHRASE_WORDS, phraseKey } from "@sift/model";
import { SOURCE_NAMES, SOURCES } from "./data/catalog.ts";
import { CALIBRATION_POPULATION } from "./train/calibrate.ts";
import { pruneByData, type Measured } from "./lists/prune.ts";
import { loadSource } from "./data/sources.ts";

/**
 * `tsx shared/training/src/lists-cli.ts --data ../shared/data`: derives the lists the product
 * ships (shared/model/lists/) from the public lists in the data folder. Only what the featuriser
 * can match cheaply and exactly is kept: whole-word phrases (looked up per word, not as 60,000
 * substring scans per request), host names, and phone numbers as digits. Each output keeps its
 * source's licence; THIRD_PARTY_NOTICES beside them carries the notices. Deterministic: sorted.
 *
 * The two phrase lists are then pruned on the trainable sources' texts (issue 44, lists/prune.ts):
 * an entry that honest messages use about as often as spam ("about", "store", "number") goes.
 */
const { values } = parseArgs({ options: { data: { type: "string", default: "../shared/data" } } });
const lists = resolve(values.data!, "lists");
const read = (...path: string[]) => readFileSync(join(lists, ...path), "utf8").split("\n");
const out = (name: string, entries: Iterable<string>) => {
  const sorted = [...new Set(entries)].filter((e) => e !== "").sort();
  writeFileSync(join(LISTS_DIR, name), `${sorted.join("\n")}\n`);
  console.log(`${name}: ${sorted.length} entries`);
};

const HOST = /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$/;
/** Shorter phrases are the over-matching substrings the list's author warns about ("-meme."). */
const MIN_PHRASE = 5;

const phrase = (entry: string): string | undefined => {
  const key = phraseKey(entry);
  const n = key.split(" ").length;
  return key.length >= MIN_PHRASE && n <= PHRASE_WORDS && !/^[0 ]+$/.test(key) ? key : undefined;
};

/** Python-regex keyword fragments that are plain words once their separator classes become spaces. */
const literalKeyword = (line: string): string | undefined => {
  const plain = line
    .replace(/\(\?#[^)]*\)|\(\?[a-z]+\)/g, "")
    .replace(/\[\\W_\]\*\+?|\[\\W_\]\+|\\W[?*+]?|\\s[?*+]?|\[\\s-\]\?|\\b/g, " ");
  return /^[\p{L}\p{N} ]+$/u.test(plain) ? phrase(plain) : undefined;
};

mkdirSync(LISTS_DIR, { recursive: true });
const texts = SOURCE_NAMES.filter((s) => SOURCES[s].train).flatMap((source) =>
  loadSource(resolve(values.data!), source).map((row) => ({
    family: SOURCES[source].family,
    label: row.label,
    tokens: phraseKey(row.text).split(" "),
    formLike: Object.values(CALIBRATION_POPULATION).flat(2).includes(source),
  })),
);
const pruned = (name: string, entries: string[]): string[] => {
  const { kept, dropped } = pruneByData(entries, texts);
  const shown = (m: Measured) =>
    `${m.entry} (spam ${(m.spamRate * 100).toFixed(2)}%, clean ${(m.cleanRate * 100).toFixed(2)}%)`;
  console.log(
    `${name}: ${dropped.length} entries pruned, e.g. ${dropped.slice(0, 12).map(shown).join("; ")}`,
  );
  return kept;
};
const splorp = read("splorp_comment_blacklist", "blacklist.txt").map((l) => l.trim().toLowerCase());
out(
  "wp-comment-phrases.txt",
  pruned(
    "wp-comment-phrases.txt",
    splorp.filter((l) => !l.includes(".")).flatMap((l) => phrase(l) ?? []),
  ),
);
out(
  "wp-comment-domains.txt",
  splorp.filter((l) => HOST.test(l)),
);
out(
  "smokedetector-keywords.txt",
  pruned(
    "smokedetector-keywords.txt",
    read("smokedetector", "bad_keywords.txt")
      .filter((l) => !l.startsWith("#"))
      .flatMap((l) => literalKeyword(l.trim()) ?? []),
  ),
);
out(
  "smokedetector-websites.txt",
  read("smokedetector", "blacklisted_websites.txt")
    .map((l) =>
      l
        .replace(/\(\?#[^)]*\)/g, "")
        .replace(/\\\./g, ".")
        .trim()
        .toLowerCase(),
    )
    .filter((l) => HOST.test(l)),
);
out(
  "smokedetector-numbers.txt",
  read("smokedetector", "blacklisted_numbers.txt")
    .map((l) => l.replace(/\(\?#[^)]*\)/g, "").replace(/\D/g, ""))
    // Seven digits is the shortest full local number; longer than 15 is not a phone number (E.164).
    .filter((d) => d.length >= 7 && d.length <= 15),
);
out(
  "disposable-email-domains.txt",
  read("disposable_email_domains", "disposable_email_blocklist.conf").map((l) => l.trim().toLowerCase()),
);
// CC-BY-SA-4.0: its own file, entries unchanged, its licence beside it.
out(
  "url-shorteners.txt",
  read("url_shorteners", "list")
    .map((l) => l.trim().toLowerCase())
    .filter((l) => !l.startsWith("#")),
);
copyFileSync(join(lists, "url_shorteners", "LICENSE"), join(LISTS_DIR, "url-shorteners.LICENSE"));
// Issue 59: the contact-form campaigns' fragments, copied as is (MIT); the featuriser compiles
// them at load (shared/model/src/features/signals/campaigns.ts).
copyFileSync(join(lists, "contact_form_spam", "messages.json"), join(LISTS_DIR, "contact-form-spam.json"));
