/**
 * The console's one way of writing HTML: the `html` tagged template escapes every interpolated
 * value unless it is already `Html` (made by `html` itself, or by `trusted` for a string the code
 * wrote). Lists are joined, `null`, `undefined` and `false` render nothing. Nothing else turns a
 * string into markup, so text from users, spammers or Redis is always text.
 */
export class Html {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Text made safe for an element's content and for a quoted attribute value. */
export const escapeText = (text: string): string => text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);

const render = (value: Interpolation): string => {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeText(String(value as string | number | boolean));
};

export const html = (strings: TemplateStringsArray, ...values: Interpolation[]): Html =>
  new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]!) : ""), ""));

/** Marks a string the code itself wrote (never one that came from outside) as markup. */
export const trusted = (markup: string): Html => new Html(markup);
