import { createHash } from "node:crypto";
import type { NormalizedField } from "@sift/contracts";
import { describe, expect, it } from "vitest";
import {
  BUCKETS,
  FEATURIZER_VERSION,
  featurize,
  MAX_FEATURES,
  NEXT_FEATURIZER_VERSION,
  SIGNAL_VALUE,
} from "./featurize.ts";
import { fnv1a } from "./hash.ts";
import { canonicalText } from "./text.ts";

const WORDS = ["order", "parcel", "refund", "cheap", "visit", "garden", "price", "hello", "seo", "loan"];
/** 3,000 words: more distinct features than the bag starts with, and past MAX_FEATURES. */
const LONG = Array.from({ length: 3_000 }, (_, i) => `${WORDS[(i * 7) % 10]}${i % 97}`).join(" ");

/**
 * Submissions whose features are pinned by a digest in this file: plain ASCII, tabs and
 * line breaks, fancy fonts, Latin marks, other scripts, emoji (surrogate pairs), links, addresses,
 * numbers, a text long enough to be capped, and two forms the form signals read (issue 59).
 */
const PINNED: NormalizedField[][] = [
  [["message", "Hello, is the room still free for the weekend of 14 June? We are two adults."]],
  [
    ["your-name", "Marie"],
    ["your-email", "marie.dupont@gmail.com"],
    ["your-message", "Bonjour, je voudrais savoir si vous livrez à Lyon. Merci beaucoup !"],
  ],
  [
    ["comment_author", "QuickBooks Support"],
    ["comment_author_email", "help4you@mailinator.com"],
    [
      "comment_content",
      "Great post! Call +1-800-555-0199 now\tfor instant help.\nVisit https://bit.ly/x?utm=1",
    ],
  ],
  [
    [
      "message",
      'Ｆｒｅｅ 𝐟𝐫𝐞𝐞 money!!!!!! h̶ā̶ź 😀😀 [url=http://a.example.xyz]x[/url] <a href="http://b.top">b</a>',
    ],
  ],
  [
    ["message", "สวัสดีครับ ส่วนลด 50% วันนี้เท่านั้น"],
    ["name", "Иван ivan"],
  ],
  [
    ["website", "https://seo-agency.example/services"],
    ["message", "We can rank your website on Google's first page."],
  ],
  [["message", LONG]],
  [
    ["name", "PayPal Service"],
    ["email", "service.paypal@gmail.com"],
    ["message", "Your PayPal account has been limited. Restore it: https://paypal-verify.top/login"],
  ],
  [
    ["name", "Mike from Monkey Digital"],
    ["email", "mike@growthmail.example"],
    [
      "message",
      "Hi, I wanted to know your price. We can rank your website on Google, reply YES. https://www.monkey-seo.com/x",
    ],
  ],
];

const norm = (vals: Float32Array) => Math.sqrt(vals.reduce((s, v) => s + v * v, 0));

describe("featurize", () => {
  it("gives exactly featuriser 6's features (if this changes, bump FEATURIZER_VERSION and retrain)", () => {
    // The committed model was trained on these features: a faster featuriser must hash the same
    // ids with the same values, bit for bit, or the worker scores with the wrong weights.
    const digest = createHash("sha256");
    for (const fields of PINNED) {
      const { ids, vals } = featurize(fields);
      digest.update(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength));
      digest.update(new Uint8Array(vals.buffer, vals.byteOffset, vals.byteLength));
    }
    expect(FEATURIZER_VERSION).toBe(6);
    expect(digest.digest("hex")).toBe("08a40a6e204e9fae9ace7a91eb4932fa723454f8e1c89def9f855c54950cce74");
  });

  it("gives exactly featuriser 7's features, the next version's (built and measured, not shipped)", () => {
    // Featuriser 7's two signals join on a submission that fires both: a SpamAssassin family
    // (advance fee) and profanity; the pinned set's other submissions fire neither.
    const next: NormalizedField[][] = [
      ...PINNED,
      [["message", "I write to you as the next of kin of a late client of our bank. No bullshit."]],
    ];
    const digest = createHash("sha256");
    for (const fields of next) {
      const { ids, vals } = featurize(fields, undefined, NEXT_FEATURIZER_VERSION);
      digest.update(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength));
      digest.update(new Uint8Array(vals.buffer, vals.byteOffset, vals.byteLength));
    }
    expect(NEXT_FEATURIZER_VERSION).toBe(7);
    expect(digest.digest("hex")).toBe("c64fd3470ce16e64a38c7f522e9772c55725be99cf2a63e2fd6ada9e5d5feaac");
  });

  it("is deterministic, L2-normalised and inside the bucket range", () => {
    // No form signal fires on these two fields, so all features are normalised n-grams.
    const fields = [
      ["name", "Ann"],
      ["message", "Hello there, how are you"],
    ] as const;
    const a = featurize(fields);
    const b = featurize(fields);
    expect([...a.ids]).toEqual([...b.ids]);
    expect(norm(a.vals)).toBeCloseTo(1, 5);
    for (const id of a.ids) expect(id >= 0 && id < BUCKETS).toBe(true);
  });

  it("adds each form signal at SIGNAL_VALUE, outside the n-grams' normalisation", () => {
    const plain = featurize([["message", "Nice to meet you, see you soon"]]);
    const linked = featurize([
      ["message", "Nice to meet you, see you soon [url=http://a.example.xyz]x[/url]"],
    ]);
    const id = fnv1a("x:link:bbcode") & (BUCKETS - 1);
    expect([...plain.ids]).not.toContain(id);
    const at = [...linked.ids].indexOf(id);
    expect(linked.vals[at]).toBeGreaterThanOrEqual(SIGNAL_VALUE);
    // The same signal weighs the same beside a short and a long text.
    const long = featurize([["message", `${"word ".repeat(200)} [url=http://a.example.xyz]x[/url]`]]);
    expect(long.vals[[...long.ids].indexOf(id)]).toBeCloseTo(linked.vals[at]!, 5);
  });

  it("sees through fancy-font letters, case and Latin accents", () => {
    expect(canonicalText("𝐅𝐑𝐄𝐄 Mönëy")).toBe("free money");
    expect(featurize([["message", "𝐅𝐑𝐄𝐄 MONEY"]]).ids).toEqual(featurize([["message", "free money"]]).ids);
  });

  it("keeps marks that carry meaning in other scripts", () => {
    expect(canonicalText("किताब")).toBe("किताब");
    expect(canonicalText("ดูดวง")).toBe("ดูดวง");
  });

  it("treats numbers as patterns, not values", () => {
    expect(canonicalText("call 0800123456 or 0900987654")).toBe("call 000 or 000");
  });

  it("gives texts of the same shape in different scripts shared features", () => {
    const shared = (a: string, b: string) => {
      const ids = new Set(featurize([["message", a]]).ids);
      return [...featurize([["message", b]]).ids].filter((id) => ids.has(id)).length;
    };
    // Same shape ("a a $000 a!!!"), no letter in common: only the shape n-grams can match.
    expect(shared("ganhe agora $500 aqui!!!", "выиграй сейчас $500 тут!!!")).toBeGreaterThan(5);
    expect(shared("ganhe agora", "выиграй сейчас")).toBeLessThan(
      shared("ganhe agora!!!", "выиграй сейчас!!!"),
    );
  });

  it("caps the features of a very long submission", () => {
    const long = Array.from({ length: 3000 }, (_, i) => `word${i.toString(36)}x`).join(" ");
    expect(featurize([["message", long]]).ids.length).toBe(MAX_FEATURES);
  });
});
