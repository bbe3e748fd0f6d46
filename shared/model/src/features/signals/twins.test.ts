import type { NormalizedField } from "@sift/contracts";
import { describe, expect, it } from "vitest";
import { loadLinearScorer } from "../../linear.ts";
import { BUCKETS, featurize, type FieldTrace } from "../featurize.ts";
import { fnv1a } from "../hash.ts";
import { FORM_SPAM_SIGNALS } from "./pitch.ts";

const NEW_SIGNALS: readonly string[] = FORM_SPAM_SIGNALS;

const LOGIT = (p: number) => Math.log(p / (1 - p));

/**
 * Honest messages that share one part with a pitch, a phish or a campaign and so fire one of the
 * new signals, written as the people who send them would: the committed model must leave each
 * under 0.8.
 */
const TWINS: NormalizedField[][] = [
  [
    ["name", "Julia Weber"],
    ["email", "julia.weber@gmail.com"],
    ["message", "Hi, I wanted to know your price for a three-night stay in June, two adults. Thanks, Julia"],
  ],
  [
    ["name", "Carlos Ruiz"],
    ["email", "carlos@ruizfontaneria.es"],
    [
      "message",
      "Hola, os paso el presupuesto que pedisteis: https://drive-files.example.net/presupuesto.pdf Saludos",
    ],
  ],
  [
    ["name", "Growth Team Smith Ltd"],
    ["email", "smith.ltd.orders@gmail.com"],
    ["message", "Hello, we'd like to order 40 mugs with our logo. What are your delivery times? Regards"],
  ],
  [
    ["name", "Dana"],
    ["email", "dana.k@outlook.com"],
    ["message", "Do you offer funding or financing for the kitchen? I'd rather pay in instalments."],
  ],
];

describe("issue 59's signals in the committed model", () => {
  const scorer = loadLinearScorer();
  const none = scorer.logOdds({ ids: new Int32Array(0), vals: new Float32Array(0) });
  const added = (signal: string) =>
    scorer.logOdds({ ids: Int32Array.of(fnv1a(`x:${signal}`) & (BUCKETS - 1)), vals: Float32Array.of(1) }) -
    none;

  it("gives no new signal that honest messages fire the weight to take one from its median to 0.8", () => {
    // Issue 44 measured honest whole messages' median score at about 0.4 (list-weights.test.ts).
    // A chain of account words in a domain (secure-account-update.com) is the exception, on
    // purpose: its honest twins (hyphenated business names) never fire it (form.test.ts), and in
    // the training data it fires on spam only (stackexchange_spam's recovery and unlock sites),
    // so it learns the weight to flag alone.
    const room = LOGIT(0.8) - LOGIT(0.4);
    for (const signal of NEW_SIGNALS.filter((s) => s !== "lookalike:security-words"))
      expect({ signal, below: added(signal) < room }).toEqual({ signal, below: true });
    expect(added("lookalike:security-words")).toBeGreaterThan(room);
  });

  it("leaves honest messages that fire a new signal under 0.8", () => {
    for (const fields of TWINS) {
      const traces: FieldTrace[] = [];
      const features = featurize(fields, traces);
      const fired = traces.flatMap((t) => t.signals).filter((s) => NEW_SIGNALS.includes(s));
      expect(fired.length, fields.at(-1)![1]).toBeGreaterThan(0);
      const score = 1 / (1 + Math.exp(-scorer.logOdds(features)));
      expect({ message: fields.at(-1)![1].slice(0, 40), fired, clean: score < 0.8 }).toEqual({
        message: fields.at(-1)![1].slice(0, 40),
        fired,
        clean: true,
      });
    }
  });
});
