import type { ContentView } from "@sift/verdicts";

/**
 * What a row of Submissions or the review queue shows of a submission, so it can be judged where
 * it is acted on: who sent it (the name and address fields, as the privacy mode kept them: masked
 * as `[email]` in `redacted` mode) and its first line or two (a subject, then the message). Every
 * string here was written by whoever sent the form: the views escape it and make hidden
 * characters visible.
 */
export interface Gist {
  /** The name and the address, "Maria · maria@example.org"; null when no field looks like either. */
  from: string | null;
  /** The subject and the first lines of the message, cut at LINES_CHARS characters. */
  lines: string | null;
  /** Whether `lines` was cut. */
  cut: boolean;
  /** Why there is nothing to show: the mode kept no text, or its key is gone. */
  note: string | null;
}

/** Characters of the first lines a row shows: two lines of a phone's width. */
export const LINES_CHARS = 160;

const NAME = /^(?:(?:your|full|first|last|sender|contact)?[-_ ]?name|from|sender|author)$/i;
const ADDRESS = /e-?mail|^from$|sender|reply/i;
const SUBJECT = /^(?:subject|title|topic)$/i;
const BODY = /message|body|comment|text|content|enquiry|inquiry|question|details|note|request/i;

const squeeze = (text: string): string => text.replace(/\s+/g, " ").trim();

export const gistOf = (content: ContentView): Gist => {
  if (content.mode === "none") return { from: null, lines: null, cut: false, note: "no text kept" };
  if (!("fields" in content)) return { from: null, lines: null, cut: false, note: "text unavailable" };
  const fields = content.fields.filter(([, value]) => value.trim() !== "");
  const used = new Set<number>();
  const pick = (test: RegExp): string | null => {
    const at = fields.findIndex(([name], i) => !used.has(i) && test.test(name.trim()));
    if (at < 0) return null;
    used.add(at);
    return squeeze(fields[at]![1]);
  };
  const name = pick(NAME);
  const address = pick(ADDRESS);
  const subject = pick(SUBJECT);
  let body = pick(BODY);
  if (body === null) {
    // No field named like a message: the longest value left is the one to read.
    let longest = -1;
    fields.forEach(([, value], i) => {
      if (!used.has(i) && (longest < 0 || value.length > fields[longest]![1].length)) longest = i;
    });
    if (longest >= 0) body = squeeze(fields[longest]![1]);
  }
  const from = [name, address].filter((x): x is string => !!x).join(" · ") || null;
  const whole = [subject, body].filter((x): x is string => !!x).join(" — ");
  const chars = Array.from(whole);
  return {
    from: from === null ? null : Array.from(from).slice(0, 120).join(""),
    lines: whole ? chars.slice(0, LINES_CHARS).join("") : null,
    cut: chars.length > LINES_CHARS,
    note: null,
  };
};
