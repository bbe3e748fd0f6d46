/**
 * Where a person goes back to after signing in (issue 41): the page a signed-out GET asked for,
 * and a form whose session ended before it was sent (kept as its fields, to be sent again only
 * when the person says so on the page after sign-in). Only paths of the console itself, so a link
 * cannot send anyone elsewhere.
 */

/** A console path to return to: under /console/, no scheme or host, not the sign-in pages. */
export const returnTarget = (value: unknown): string | null => {
  if (typeof value !== "string" || value.length > 2_000) return null;
  if (!/^\/console\/[^\s\\#]*$/.test(value) || value.includes("//")) return null;
  if (/^\/console\/(?:sign-in|sign-out|assets\/)/.test(value)) return null;
  return value;
};

/** The fields of a form kept for after sign-in, at most this many characters of them. */
export const RESUME_MAX = 16_384;

/** A form's fields, but its CSRF token (a new session has another), as one query string. */
export const keepForm = (fields: Record<string, string | string[]>): string | null => {
  const kept = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (name === "_csrf") continue;
    for (const v of Array.isArray(value) ? value : [value]) kept.append(name, v);
  }
  const text = kept.toString();
  return text.length <= RESUME_MAX ? text : null;
};

/** The kept fields again, as name/value pairs for hidden inputs. */
export const keptFields = (text: string): Array<[string, string]> =>
  text.length > RESUME_MAX ? [] : [...new URLSearchParams(text)].filter(([name]) => name !== "_csrf");

/** What a kept form did, in words, for the button that sends it again. */
export const describeAction = (path: string, fields: ReadonlyArray<readonly [string, string]>): string => {
  const get = (name: string) => fields.find(([n]) => n === name)?.[1] ?? "";
  const word = (state: string) => (state === "spam" ? "spam" : "not spam");
  if (/\/review$/.test(path)) {
    if (get("one")) return `Mark the submission ${word(get("one").split(":")[0] ?? "")}`;
    if (get("selected")) {
      const n = fields.filter(([name]) => name === "ids").length;
      return `Mark ${n} selected ${n === 1 ? "submission" : "submissions"} ${word(get("selected"))}`;
    }
    if (get("all")) return `Mark everything that matches the filter ${word(get("all"))}`;
    if (get("block"))
      return `Block the sender's ${get("block").startsWith("domain:") ? "domain" : "address"}`;
  }
  if (/\/rotate$/.test(path)) return "Rotate the secret";
  if (/\/lists\/add$/.test(path)) return `Add ${get("value")} to the ${get("kind") || "block"} list`;
  return "Send the form again";
};
