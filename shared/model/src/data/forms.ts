import { normalizeContent } from "@sift/content";
import type { FieldPair } from "../features/featurize.ts";
import { fnv1a } from "../features/hash.ts";
import type { Row } from "./sources.ts";

/**
 * Form shapes seen in the wild: a plain contact form, WordPress comments, Contact Form 7, a
 * name-and-message form, and a bare string (the API's `content: "…"`). Which one a row gets is
 * a hash of the row, so it is label-blind and reproducible.
 */
const SHAPES: ReadonlyArray<readonly [name: string, email: string | null, message: string]> = [
  ["name", "email", "message"],
  ["name", "email", "message"],
  ["comment_author", "comment_author_email", "comment_content"],
  ["your-name", "your-email", "your-message"],
  ["name", null, "message"],
];
/** One row in five is sent as a bare string, like `content: "…"`. */
const STRING_SHARE = 5;

/** Mailbox providers for built addresses; chosen by hash, never by label, so they teach nothing false. */
const MAIL_DOMAINS = [
  "gmail.com",
  "yahoo.com",
  "hotmail.com",
  "outlook.com",
  "icloud.com",
  "gmx.de",
  "mail.ru",
  "yandex.ru",
  "web.de",
  "proton.me",
];

/**
 * Builds the classify `content` for a row: the message in a form's message field, beside an
 * author (the row's own author where the set has one, else one drawn from the real author
 * names of the YouTube set, label-blind) and an address made from that name.
 */
export const formContent = (row: Row, index: number, authors: readonly string[]): unknown => {
  const h = fnv1a(`${row.source}#${index}`);
  if (h % STRING_SHARE === 0) return row.text;
  const [nameField, emailField, messageField] = SHAPES[(h >>> 8) % SHAPES.length]!;
  const author = row.author ?? authors[(h >>> 12) % Math.max(authors.length, 1)] ?? "Alex";
  const content: Record<string, string> = { [nameField]: author };
  if (emailField) content[emailField] = emailFor(author, h);
  content[messageField] = row.text;
  return content;
};

const emailFor = (author: string, h: number): string => {
  const local =
    author
      .normalize("NFKD")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ".")
      .replace(/^\.+|\.+$/g, "")
      .slice(0, 24) || "user";
  return `${local}@${MAIL_DOMAINS[(h >>> 16) % MAIL_DOMAINS.length]}`;
};

/** The fields the service would send for this content: the same normalisation as classify. */
export const formFields = (content: unknown): FieldPair[] => {
  const result = normalizeContent(content);
  return result.ok ? result.fields : [];
};
