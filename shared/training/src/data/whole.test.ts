import { describe, expect, it } from "vitest";
import type { SourceRow } from "./sources.ts";
import { evalFold, langOf, wholeMessages } from "./whole.ts";

const AUTHORS = ["Maria Lopez", "Nikolai Petrov", "Chloe Martin", "Sam Okafor"];

const rows = (source: SourceRow["source"], label: 0 | 1, texts: readonly string[]): SourceRow[] =>
  texts.map((text, i) => ({ source: source as SourceRow["source"], text, label, group: `${source}:${i}` }));

const ENQUIRIES = Array.from(
  { length: 40 },
  (_, i) => `Do you have a table for ${i} people on Friday evening?`,
);

describe("whole submissions", () => {
  it("joins two to five rows of one label, one language and one test fold into a form", () => {
    const input = [
      ...rows("polyai_enquiries" as SourceRow["source"], 0, ENQUIRIES),
      ...rows(
        "sms_spam" as SourceRow["source"],
        1,
        ENQUIRIES.map((_, i) => `Claim prize number ${i} today, reply YES`),
      ),
    ];
    const messages = wholeMessages(input, AUTHORS, evalFold);
    expect(messages.length).toBeGreaterThan(10);
    for (const m of messages) {
      const parts = input.filter((r) => m.text.includes(r.text));
      expect(parts.length).toBeGreaterThanOrEqual(2);
      expect(parts.length).toBeLessThanOrEqual(5);
      expect(new Set(parts.map((p) => p.label))).toEqual(new Set([m.label]));
      expect(new Set(parts.map((p) => evalFold(p.group)))).toEqual(new Set([evalFold(m.group)]));
      // A form: a name, an address and the message, as the featuriser will read them.
      expect(m.fields.map(([name]) => name).join(" ")).toMatch(/name|author/);
      expect(m.fields.some(([, value]) => value.includes("@"))).toBe(true);
      expect(m.fields.some(([, value]) => value === m.text)).toBe(true);
    }
  });

  it("draws the frame by hash, never by label: the same rows as spam get the same messages", () => {
    const asHam = wholeMessages(rows("sms_spam" as SourceRow["source"], 0, ENQUIRIES), AUTHORS, evalFold);
    const asSpam = wholeMessages(rows("sms_spam" as SourceRow["source"], 1, ENQUIRIES), AUTHORS, evalFold);
    expect(asSpam.map((m) => [m.text, m.shape, m.fields])).toEqual(
      asHam.map((m) => [m.text, m.shape, m.fields]),
    );
    expect(asSpam.every((m) => m.label === 1) && asHam.every((m) => m.label === 0)).toBe(true);
  });

  it("keeps rows of different languages apart and leaves long rows alone", () => {
    const mixed: SourceRow[] = [
      ...rows("multilingual_sms" as SourceRow["source"], 0, ENQUIRIES.slice(0, 10)).map((r) => ({
        ...r,
        lang: "de",
      })),
      ...rows("tg_spam_umputun" as SourceRow["source"], 0, [
        "Привет, как дела?",
        "Где встреча завтра?",
        "Я опоздаю.",
      ]),
      ...rows("spamassassin" as SourceRow["source"], 0, ["x".repeat(500), "y".repeat(500)]),
    ];
    const messages = wholeMessages(mixed, AUTHORS, () => 0);
    expect(new Set(messages.map((m) => m.lang))).toEqual(new Set(["de", "ru"]));
    expect(messages.some((m) => m.text.includes("xxxxx"))).toBe(false);
    expect(langOf({ source: "thai_sms" as SourceRow["source"], text: "สวัสดีครับ", label: 0, group: "g" })).toBe(
      "th",
    );
  });

  it("gives some senders an address unlike their name, whatever the label", () => {
    const messages = wholeMessages(
      rows("polyai_enquiries" as SourceRow["source"], 0, ENQUIRIES.concat(ENQUIRIES)),
      AUTHORS,
      () => 0,
    );
    const unlike = messages.filter((m) => {
      const name = m.fields.find(([n]) => n.includes("name") || n.includes("author"))![1];
      const email = m.fields.find(([, v]) => v.includes("@"))![1];
      return !email.startsWith(name.toLowerCase().replace(/[^a-z0-9]+/g, "."));
    });
    expect(unlike.length).toBeGreaterThan(0);
    expect(unlike.length).toBeLessThan(messages.length);
  });
});
