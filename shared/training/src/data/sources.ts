import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { SourceName } from "./catalog.ts";
import { readRecords } from "./csv.ts";
import { kindOf } from "./kinds.ts";
import { groupKey, type Row } from "./rows.ts";
import { loadSpamAssassin } from "./spamassassin.ts";
import { stackExchangePosts, stackExchangeTitles } from "./stackexchange.ts";

/** A row of a known source: what the loaders below return. */
export type SourceRow = Row & { source: SourceName };

const label = (value: string): 0 | 1 =>
  value.trim().toLowerCase() === "spam" || value.trim() === "1" ? 1 : 0;

const normalizedCsv = (dir: string, source: SourceName): SourceRow[] =>
  readRecords(readFileSync(join(dir, source, "normalized.csv"), "utf8"))
    .filter((r) => (r["text"] ?? "").trim() !== "")
    .map((r) => {
      const text = r["text"]!.trim();
      const spam = label(r["label"]!);
      const kind = spam === 1 ? kindOf(source, r["orig_label"]) : undefined;
      return { source, text, label: spam, group: `${source}:${groupKey(text)}`, ...(kind ? { kind } : {}) };
    });

const smsSpam = (dir: string): SourceRow[] =>
  readFileSync(join(dir, "sms_spam", "SMSSpamCollection"), "utf8")
    .split("\n")
    .filter((line) => line.includes("\t"))
    .map((line) => {
      const [tag, ...rest] = line.split("\t");
      const text = rest.join("\t").trim();
      return { source: "sms_spam" as const, text, label: label(tag!), group: `sms:${groupKey(text)}` };
    });

/** Translations share the English message's group, which is also sms_spam's group for it. */
const multilingual = (dir: string): SourceRow[] =>
  readRecords(readFileSync(join(dir, "multilingual_sms", "data-en-hi-de-fr.csv"), "utf8")).flatMap((r) =>
    (["text_hi", "text_de", "text_fr"] as const)
      .map((column) => ({ column, text: (r[column] ?? "").trim() }))
      .filter(({ text }) => text !== "")
      .map(({ column, text }) => ({
        source: "multilingual_sms" as const,
        text,
        label: label(r["labels"]!),
        group: `sms:${groupKey(r["text"] ?? "")}`,
        lang: column.slice(5),
      })),
  );

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", "#39": "'" };

/** TubeSpam keeps HTML: entities, <br /> and a stray U+FEFF. Comments reach forms as plain text. */
const decodeHtml = (text: string): string =>
  text
    .replace(/\uFEFF/g, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (all, name: string) => {
      if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith("#") && name !== "#39") return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? all;
    })
    .trim();

const youtube = (dir: string): SourceRow[] =>
  readdirSync(join(dir, "youtube_spam"))
    .filter((f) => f.endsWith(".csv"))
    .sort()
    .flatMap((file) => readRecords(readFileSync(join(dir, "youtube_spam", file), "utf8")))
    .map((r) => {
      const text = decodeHtml(r["CONTENT"] ?? "");
      return {
        source: "youtube_spam" as const,
        text,
        label: label(r["CLASS"] ?? r["label"] ?? "0"),
        group: `youtube_spam:${groupKey(text)}`,
        author: decodeHtml(r["AUTHOR"] ?? ""),
      };
    })
    .filter((r) => r.text !== "");

/** Rows from a loader that does not know the catalog, marked as the source they were read for. */
const tagged = (source: SourceName, rows: Row[]): SourceRow[] => rows.map((r) => ({ ...r, source }));

export const loadSource = (dir: string, source: SourceName): SourceRow[] => {
  if (source === "spamassassin") return tagged(source, loadSpamAssassin());
  if (source === "stackexchange_spam") return tagged(source, stackExchangePosts(dir));
  if (source === "stackexchange_titles") return tagged(source, stackExchangeTitles(dir));
  if (source === "sms_spam") return smsSpam(dir);
  if (source === "multilingual_sms") return multilingual(dir);
  if (source === "youtube_spam") return youtube(dir);
  return normalizedCsv(dir, source);
};
