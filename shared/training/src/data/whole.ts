import type { NormalizedField } from "@sift/contracts";
import { fnv1a } from "@sift/model";
import { foldOf } from "./split.ts";
import { formFields, localPartOf, type FormShape } from "./forms.ts";
import type { SourceRow } from "./sources.ts";

/**
 * Whole submissions (issue 44): a contact form's message is three to six sentences with a
 * greeting, a name, an address and a sign-off, while most of the training families' honest rows
 * are one line (SMS, chat, comments, a 43-character enquiry) and most long texts are spam. Left
 * so, length, a greeting and every signal that fires more often in a longer text (a listed word,
 * a price, a phone number) become a spam sign. So rows of one family, one label and one language
 * are joined, two to five at a time, into one submission around them, and the frame is drawn
 * label-blind by hash: greeting, sign-off, the sender's name and address (sometimes unlike the
 * name, as most people's addresses are), and sometimes a price, a date, a phone number or a link
 * of the sender's own. Only the joined text is real data; the frame is the same for both labels,
 * so it can teach nothing but that it proves nothing.
 */

/** Rows longer than this are already whole messages (e-mail, Q&A posts); they are not joined. */
const MAX_PART = 400;
/** Two to five rows a message: with the frame, three to seven sentences. */
const MIN_PARTS = 2;
const MAX_PARTS = 5;

/** The language of a row as the whole-message tables report it. */
export type Lang =
  "en" | "de" | "fr" | "hi" | "th" | "ru" | "es" | "pt" | "it" | "ca" | "ro" | "gl" | "other";

/** The languages a row's own `lang` can name (the SMS set's columns, the translations). */
const NAMED: ReadonlySet<string> = new Set(["de", "fr", "es", "pt", "it", "ca", "ro", "gl"]);

/** Greetings and sign-offs per language; the first entry of greetings is "none". */
const FRAME: Record<Lang, { greetings: readonly string[]; signoffs: readonly string[] }> = {
  en: {
    greetings: ["", "Hi,", "Hello,", "Hi there,", "Good morning,", "Dear team,", "Hello!"],
    signoffs: ["Thanks,", "Kind regards,", "Best regards,", "Cheers,", "Thank you,", "Many thanks,", "Best,"],
  },
  de: {
    greetings: ["", "Hallo,", "Guten Tag,", "Sehr geehrte Damen und Herren,", "Hi,"],
    signoffs: ["Viele Grüße", "Danke,", "Mit freundlichen Grüßen", "Beste Grüße", "LG"],
  },
  fr: {
    greetings: ["", "Bonjour,", "Salut,", "Madame, Monsieur,", "Bonsoir,"],
    signoffs: ["Merci,", "Cordialement,", "Bien à vous,", "Bonne journée,", "Merci d'avance,"],
  },
  hi: { greetings: ["", "नमस्ते,", "नमस्कार,", "Hello,"], signoffs: ["धन्यवाद,", "शुभकामनाओं सहित,", "Thanks,"] },
  th: { greetings: ["", "สวัสดีครับ", "สวัสดีค่ะ"], signoffs: ["ขอบคุณครับ", "ขอบคุณค่ะ", "ขอบคุณมากครับ"] },
  ru: {
    greetings: ["", "Здравствуйте,", "Добрый день,", "Привет,"],
    signoffs: ["Спасибо,", "С уважением,", "Заранее спасибо,"],
  },
  es: {
    greetings: ["", "Hola,", "Buenos días,", "Estimados señores:", "Buenas tardes,"],
    signoffs: ["Gracias,", "Saludos,", "Un saludo,", "Atentamente,", "Muchas gracias,"],
  },
  pt: {
    greetings: ["", "Olá,", "Bom dia,", "Prezados,", "Boa tarde,"],
    signoffs: ["Obrigado,", "Obrigada,", "Atenciosamente,", "Cumprimentos,", "Abraços,"],
  },
  it: {
    greetings: ["", "Ciao,", "Buongiorno,", "Gentili signori,", "Salve,"],
    signoffs: ["Grazie,", "Cordiali saluti,", "Saluti,", "Distinti saluti,", "Grazie mille,"],
  },
  ca: {
    greetings: ["", "Hola,", "Bon dia,", "Benvolguts,", "Bona tarda,"],
    signoffs: ["Gràcies,", "Salutacions,", "Atentament,", "Moltes gràcies,"],
  },
  ro: {
    greetings: ["", "Bună ziua,", "Salut,", "Stimate domn,", "Bună,"],
    signoffs: ["Mulțumesc,", "Cu stimă,", "Cu drag,", "Toate cele bune,"],
  },
  gl: {
    greetings: ["", "Ola,", "Bo día,", "Boas tardes,", "Estimados:"],
    signoffs: ["Grazas,", "Saúdos,", "Atentamente,", "Moitas grazas,"],
  },
  other: { greetings: ["", "Hi,", "Hello,"], signoffs: ["Thanks,", "Regards,"] },
};

/** Amounts as honest messages quote them (a price asked about, a budget, a deposit). */
const AMOUNTS = ["£45", "$25", "€120", "$1,200", "€ 30", "₹500", "300 EUR", "£8.50", "$99", "2.500 €"];
const DATES = ["12/03", "14.05.", "2024-06-01", "3/11", "21.09.2024", "06/07"];
const PHONES = ["+44 7700 900123", "(555) 201-7788", "+49 176 23456789", "0612345678", "+1 415 555 0132"];
const SITES = [
  "https://www.mybakery-example.de",
  "www.annas-garden-example.co.uk",
  "https://studio-example.fr/contact",
  "https://github.com/someone",
  "https://www.linkedin.com/in/someone",
];
const MAIL_DOMAINS = [
  "gmail.com",
  "yahoo.com",
  "outlook.com",
  "icloud.com",
  "gmx.de",
  "mail.ru",
  "proton.me",
];

/** Script first (it is certain), then what the source says of its Latin-script rows. */
export const langOf = (row: SourceRow): Lang => {
  if (/\p{Script=Thai}/u.test(row.text)) return "th";
  if (/\p{Script=Cyrillic}/u.test(row.text)) return "ru";
  if (/\p{Script=Devanagari}/u.test(row.text)) return "hi";
  if (row.lang !== undefined && NAMED.has(row.lang)) return row.lang as Lang;
  return row.source === "designermadsen_spam_email" ? "other" : "en";
};

export interface WholeMessage {
  group: string;
  label: 0 | 1;
  lang: Lang;
  shape: FormShape;
  content: Record<string, string>;
  fields: NormalizedField[];
  text: string;
}

/**
 * Joins one source's rows into whole submissions. Rows are joined only with rows of the same
 * label, language and in-domain test fold (so a split by group never puts one row on both sides:
 * the message takes its first row's group, and every row in it shares that row's test fold) and
 * in an order drawn by hash, so the same data gives the same messages.
 */
export const wholeMessages = (
  rows: readonly SourceRow[],
  authors: readonly string[],
  testFold: (group: string) => number,
): WholeMessage[] => {
  const buckets = new Map<string, SourceRow[]>();
  rows.forEach((row) => {
    if (row.text.length > MAX_PART) return;
    const key = `${row.label}|${langOf(row)}|${testFold(row.group)}`;
    buckets.set(key, [...(buckets.get(key) ?? []), row]);
  });
  const out: WholeMessage[] = [];
  for (const [key, members] of [...buckets].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const ordered = members
      .map((row, i) => ({ row, h: fnv1a(`whole#${row.group}#${i}`) }))
      .sort((a, b) => a.h - b.h)
      .map((m) => m.row);
    // The label is in the bucket's key but not in any hash below: the same rows with the other
    // label would get the same messages, frame and all (whole.test.ts).
    const blind = key.slice(key.indexOf("|") + 1);
    for (let at = 0; at + MIN_PARTS <= ordered.length;) {
      const h = fnv1a(`${blind}#${at}#${ordered[at]!.group}`);
      const size = MIN_PARTS + (h % (MAX_PARTS - MIN_PARTS + 1));
      const parts = ordered.slice(at, at + size);
      at += size;
      if (parts.length < MIN_PARTS) break;
      out.push(frame(parts, authors, h));
    }
  }
  return out;
};

const pick = <T>(list: readonly T[], h: number): T => list[h % list.length]!;

/** The frame around the joined rows, every choice by hash and none by label. */
const frame = (parts: readonly SourceRow[], authors: readonly string[], h: number): WholeMessage => {
  const first = parts[0]!;
  const lang = langOf(first);
  const { greetings, signoffs } = FRAME[lang];
  const r = (salt: string) => fnv1a(`${salt}#${h}`);
  const author = first.author ?? pick(authors, r("author")) ?? "Alex Morgan";
  const sentences = parts.map((p) => p.text.trim());
  if (r("amount") % 4 === 0) {
    const at = r("amount-at") % sentences.length;
    sentences[at] = `${sentences[at]} (${pick(AMOUNTS, r("amount-which"))})`;
  }
  if (r("date") % 5 === 0) {
    const at = r("date-at") % sentences.length;
    sentences[at] = `${sentences[at]} ${pick(DATES, r("date-which"))}`;
  }
  const greeting = pick(greetings, r("greeting"));
  const signature = [pick(signoffs, r("signoff")), author];
  const extra = r("extra") % 10;
  if (extra < 2) signature.push(pick(PHONES, r("phone")));
  else if (extra < 3) signature.push(pick(SITES, r("site")));
  const body = sentences.join(r("join") % 2 === 0 ? " " : "\n");
  const text = [greeting, body, "", ...signature].filter((l, i) => i !== 0 || l !== "").join("\n");
  const email = addressFor(author, authors, r("email"));
  const shapeAt = r("shape") % 10;
  const [shape, content]: [FormShape, Record<string, string>] =
    shapeAt < 6
      ? ["name/email/message", { name: author, email, message: text }]
      : shapeAt < 8
        ? [
            "WordPress comment",
            { comment_author: author, comment_author_email: email, comment_content: text },
          ]
        : ["Contact Form 7", { "your-name": author, "your-email": email, "your-message": text }];
  // One form in eight has a phone field of its own, as many contact forms do.
  if (r("phone-field") % 8 === 0) content["phone"] = pick(PHONES, r("phone-field-which"));
  return {
    group: first.group,
    label: first.label,
    lang,
    shape,
    content,
    fields: formFields(content),
    text,
  };
};

/**
 * An address made from the name most of the time, and in three cases in ten one that shares
 * nothing with it (another person's name, a nickname, a family account), as real addresses often
 * do: `n.petrov@…` from "Nikolai" is no sign of anything.
 */
const addressFor = (author: string, authors: readonly string[], h: number): string => {
  const owner = h % 10 < 3 ? pick(authors, h >>> 4) : author;
  return `${localPartOf(owner)}@${pick(MAIL_DOMAINS, h >>> 12)}`;
};

/** The in-domain test fold of a group, as the eval's protocol splits (protocol.ts isTest). */
export const evalFold = (group: string): number => foldOf(group, 5, "eval");
