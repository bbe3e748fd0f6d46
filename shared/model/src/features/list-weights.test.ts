import { describe, expect, it } from "vitest";
import { loadLinearScorer } from "../linear.ts";
import { fnv1a } from "./hash.ts";
import { phraseKey } from "../lists/format.ts";
import { BUCKETS, featurize } from "./featurize.ts";
import { LISTS, phraseMatches } from "./lists.ts";

/**
 * Words an honest enquiry uses every day. Several were on the comment-spam or keyword list and,
 * with one shared weight for every entry, weighed like "buy viagra" (issue 44).
 */
const EVERYDAY = [
  "about",
  "store",
  "price",
  "prices",
  "groups",
  "group",
  "number",
  "hello i am",
  "thanks",
  "order",
  "book",
  "booking",
  "table",
  "question",
  "account",
  "help",
  "online",
  "service",
  "website",
  "today",
  "free",
  "best",
  "great",
  "business",
  "card",
  "money",
  "pay",
  "payment",
  "delivery",
  "open",
  "hours",
  "shop",
  "buy",
  "sale",
  "offer",
  "discount",
  "course",
  "class",
  "workshop",
  "school",
  "health",
  "insurance",
  "loan",
  "home",
  "garden",
  "cake",
  "wedding",
  "photo",
  "music",
  "game",
  "games",
  "download",
  "video",
  "review",
  "quote",
  "invoice",
  "refund",
  "hotel",
  "travel",
  "car",
  "phone",
];

const LOGIT = (p: number) => Math.log(p / (1 - p));
const id = (signal: string) => fnv1a(`x:${signal}`) & (BUCKETS - 1);

describe("list features in the committed model", () => {
  const scorer = loadLinearScorer();
  const none = scorer.logOdds({ ids: new Int32Array(0), vals: new Float32Array(0) });
  /** What one match of a list adds to the log-odds (every entry of a list shares the weight). */
  const added = (list: "wp" | "se") =>
    scorer.logOdds({
      ids: Int32Array.of(id(list === "wp" ? "wp-phrases:1" : "se-keywords:1")),
      vals: Float32Array.of(1),
    }) - none;

  it("keeps everyday words off the lists, and one listed phrase cannot take an honest message over 0.8", () => {
    const listed = EVERYDAY.flatMap((word) =>
      [
        ["wp", LISTS.wpPhrases],
        ["se", LISTS.seKeywords],
      ].flatMap(([list, phrases]) =>
        phraseMatches(phrases as typeof LISTS.wpPhrases, word.split(" ")).includes(word)
          ? [`${list}:${word}`]
          : [],
      ),
    );
    // The lists are pruned on the training data (training/src/lists/prune.ts): the words issue 44
    // saw weigh like "buy viagra" in honest enquiries go. A few everyday words rarer in honest
    // form messages than in spam stay ("insurance"); the bound below holds for them.
    const issue44 = ["wp:about", "wp:store", "wp:price", "wp:groups", "se:number", "wp:hello i am"];
    expect(listed.filter((entry) => issue44.includes(entry))).toEqual([]);
    expect(listed.length).toBeLessThan(EVERYDAY.length / 10);
    // What is left shares one weight per list; one match of it must not carry an honest message
    // from the honest median issue 44 measured (about 0.4) to 0.8.
    const room = LOGIT(0.8) - LOGIT(0.4);
    expect(added("wp")).toBeLessThan(room);
  });

  it("leaves honest whole enquiries clean, with none of their everyday words matched", () => {
    // Contact-form messages of the kinds issue 44 saw flagged, each with everyday words that the
    // comment-spam list held ("about", "store", "price", "groups", "hello i am").
    const honest = [
      "Hello I am planning my daughter's birthday. Could you tell me the price of a two-tier chocolate cake for about 20 people? We would collect it from the store on Saturday 14.05. Thanks, Maria",
      "Hi, I'm writing about the school raffle next month. Do you donate prizes to local groups? Any small voucher from your store would help. Best regards, Sam Okafor",
      "Good morning, I am a journalist at the Leeds Evening Post writing about small bakeries. Would you have ten minutes for a phone call this week? Kind regards, Chloe",
      "Hello, I ordered a blue jacket last week (order 40213) and it arrived in the wrong size. What is the price of an exchange, or can I get a refund? Thanks",
    ];
    for (const message of honest) {
      const fields = [
        ["name", "Alex Morgan"],
        ["email", "alex.morgan@gmail.com"],
        ["message", message],
      ] as const;
      const matched = [LISTS.wpPhrases, LISTS.seKeywords].flatMap((list) =>
        phraseMatches(list, phraseKey(message).split(" ")),
      );
      expect(matched.filter((m) => EVERYDAY.includes(m))).toEqual([]);
      const score = 1 / (1 + Math.exp(-scorer.logOdds(featurize(fields))));
      expect({ message: message.slice(0, 40), clean: score < 0.8 }).toEqual({
        message: message.slice(0, 40),
        clean: true,
      });
    }
  });

  it("still weighs a listed drug name toward spam", () => {
    expect(phraseMatches(LISTS.wpPhrases, ["cialis"])).toEqual(["cialis"]);
    expect(added("wp")).toBeGreaterThan(0);
  });
});
