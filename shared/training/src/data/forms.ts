import { normalizeContent } from "@sift/content";
import type { NormalizedField } from "@sift/contracts";
import { fnv1a } from "@sift/model";
import type { Row } from "./rows.ts";

/**
 * Form shapes seen in the wild: a plain contact form, WordPress comments, Contact Form 7, a
 * name-and-message form, and a bare string (the API's `content: "…"`). Which one a row gets is
 * a hash of the row, so it is label-blind and reproducible.
 */
const SHAPES: ReadonlyArray<
  readonly [shape: FormShape, name: string, email: string | null, message: string]
> = [
  ["name/email/message", "name", "email", "message"],
  ["name/email/message", "name", "email", "message"],
  ["WordPress comment", "comment_author", "comment_author_email", "comment_content"],
  ["Contact Form 7", "your-name", "your-email", "your-message"],
  ["name/message", "name", null, "message"],
];

/** The form shapes the eval reports separately. */
export const FORM_SHAPES = [
  "string",
  "name/email/message",
  "WordPress comment",
  "Contact Form 7",
  "name/message",
] as const;
export type FormShape = (typeof FORM_SHAPES)[number];
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
export const formContent = (
  row: Row,
  index: number,
  authors: readonly string[],
): { content: unknown; shape: FormShape } => {
  const h = fnv1a(`${row.source}#${index}`);
  const text = withDecoys(row.text, fnv1a(`decoy#${row.source}#${index}`));
  if (h % STRING_SHARE === 0) return { content: text, shape: "string" };
  const [shape, nameField, emailField, messageField] = SHAPES[(h >>> 8) % SHAPES.length]!;
  const author = row.author ?? authors[(h >>> 12) % Math.max(authors.length, 1)] ?? "Alex";
  const content: Record<string, string> = { [nameField]: author };
  // One address in ten is another person's (a partner's, a family account, an old nickname), as
  // real addresses often are: label-blind, so an address unlike the name proves nothing alone.
  const owner = (h >>> 20) % 10 === 0 ? (authors[(h >>> 4) % Math.max(authors.length, 1)] ?? author) : author;
  if (emailField) content[emailField] = emailFor(owner, h);
  content[messageField] = text;
  return { content, shape };
};

/**
 * Ordinary links and phone numbers, appended label-blind to one row in five and one in ten.
 * In several sets any link or long number means spam, while real enquiries often carry both;
 * adding them to both classes alike teaches the model that their mere presence proves nothing,
 * so it must look at where a link points and what the text says (the eval's probes measure it).
 */
const DECOY_LINKS = [
  "https://en.wikipedia.org/wiki/Special:Random",
  "https://github.com/nodejs/node/issues",
  "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
  "https://maps.google.com/?q=Berlin",
  "https://docs.google.com/document/d/1a2b3c/edit",
  "https://www.linkedin.com/in/someone",
  "https://www.facebook.com/events/123456",
  "https://www.amazon.com/dp/B00EXAMPLE",
  "https://www.bbc.co.uk/news",
  "https://www.mybakery-example.de/kontakt",
  "http://example.org/page.html",
  "www.city-library-example.org/opening-hours",
];
const DECOY_PHONES = [
  "+49 176 23456789",
  "(555) 201-7788",
  "07700 900123",
  "+33 6 12 34 56 78",
  "0176 2345 6789",
  "+1 415 555 0132",
];

const withDecoys = (text: string, h: number): string => {
  const pick = h % 10;
  if (pick < 2) return `${text} ${DECOY_LINKS[(h >>> 8) % DECOY_LINKS.length]}`;
  if (pick === 2) return `${text} ${DECOY_PHONES[(h >>> 8) % DECOY_PHONES.length]}`;
  return text;
};

/** An address's local part made from a name ("Mary Smith" → mary.smith), as people make theirs. */
export const localPartOf = (name: string): string =>
  name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ".")
    .replace(/^\.+|\.+$/g, "")
    .slice(0, 24) || "user";

const emailFor = (author: string, h: number): string =>
  `${localPartOf(author)}@${MAIL_DOMAINS[(h >>> 16) % MAIL_DOMAINS.length]}`;

/** The fields the service would send for this content: the same normalisation as classify. */
export const formFields = (content: unknown): NormalizedField[] => {
  const result = normalizeContent(content);
  return result.ok ? result.fields : [];
};
