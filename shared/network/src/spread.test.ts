import { describe, expect, it } from "vitest";
import {
  DEFAULT_WEIGHTS,
  isNetworkLabel,
  kindsUsed,
  networkSignal,
  withNetwork,
  type KeySpread,
} from "./spread.ts";

/** Weights and gates of the test's own, so the rules hold whatever the replay fits. */
const W = { text: 1, short: 1, link: 1, contact: 1, burst: 0.5, cap: 3 };
const G = { bandsAgree: 1, window: "week" } as const;
const text = (week: number, day = week, hour = 0): KeySpread => ({ kind: "text", hour, day, week });
const link = (week: number, day = week, hour = 0): KeySpread => ({ kind: "link", hour, day, week });

describe("the network term", () => {
  it("says nothing below the minimum number of other sites", () => {
    expect(networkSignal([text(2, 2, 2), link(2)], 3)).toEqual({ term: 0 });
    expect(networkSignal([], 3)).toEqual({ term: 0 });
  });

  it("grows with the spread and the burst, and never past its cap", () => {
    const at = (s: KeySpread[]) => networkSignal(s, 3, W, G).term;
    expect(at([text(3)])).toBeGreaterThan(0);
    expect(at([text(4)])).toBeGreaterThan(at([text(3)]));
    expect(at([text(4, 4, 4)])).toBeGreaterThan(at([text(4)]));
    expect(at([text(3), link(3)])).toBeGreaterThan(at([text(3)]));
    const huge = at([text(64, 64, 64), link(64, 64, 64), { kind: "contact", hour: 64, day: 64, week: 64 }]);
    expect(huge).toBe(3);
    // The shipped weights never pass their cap either, and move a spread link.
    const shipped = networkSignal(
      [text(64, 64, 64), link(64, 64, 64), { kind: "contact", hour: 64, day: 64, week: 64 }],
      3,
    ).term;
    expect(shipped).toBeGreaterThan(0);
    expect(shipped).toBeLessThanOrEqual(DEFAULT_WEIGHTS.cap);
  });

  it("counts a spread only past the sender's own: one person writing to many sites is not a campaign", () => {
    const sender = (week: number): KeySpread => ({ kind: "sender", hour: week, day: week, week });
    expect(networkSignal([text(9, 9, 9), sender(9)], 3, W, G)).toEqual({ term: 0 });
    expect(networkSignal([text(9, 9, 9), sender(1)], 3, W, G).term).toBeGreaterThan(0);
    expect(networkSignal([sender(40)], 3, W, G)).toEqual({ term: 0 });
  });

  it("names the strongest kind and the sites in the last 24 h, else in the last 7 days", () => {
    const recent = networkSignal([text(14, 14), link(3, 3)], 3, W, G);
    expect(recent.reason).toMatchObject({
      signal: "network_text",
      label: "sent to 14 other sites in the last 24 h",
    });
    expect(recent.reason?.weight).toBe(recent.term);
    const older = networkSignal([link(5, 1)], 3, W, G);
    expect(older.reason?.label).toBe("a link in it sent to 5 other sites in the last 7 days");
    expect(isNetworkLabel(older.reason!.label!)).toBe(true);
    expect(isNetworkLabel(recent.reason!.label!)).toBe(true);
    expect(isNetworkLabel("sent to the moon")).toBe(false);
  });

  it("looks up only the kinds the weights read: the weighted ones and the sender's", () => {
    const none = { text: 0, short: 0, link: 0, contact: 0, burst: 0, cap: 2 };
    expect([...kindsUsed(none)]).toEqual([]);
    expect([...kindsUsed({ ...none, link: 0.25 })].sort()).toEqual(["link", "sender"]);
    expect([...kindsUsed({ ...none, text: 1, contact: 1 })].sort()).toEqual(["contact", "sender", "text"]);
    expect([...kindsUsed({ ...none, burst: 0.5 })]).toEqual([]);
    // The burst reads the weighted kinds only: a text's burst moves nothing while text weighs 0.
    const linkOnly = { ...none, link: 1, burst: 1, cap: 5 };
    expect(networkSignal([text(5, 5, 5), link(3, 3, 0)], 3, linkOnly, G).term).toBe(
      networkSignal([link(3, 3, 0)], 3, linkOnly, G).term,
    );
    expect(networkSignal([link(3, 3, 3)], 3, linkOnly, G).term).toBe(2 + 1);
    // A kind left out changes no term: the shipped weights give the same term without it.
    const spreads = [text(9, 9, 9), link(5, 5), { kind: "contact" as const, hour: 7, day: 7, week: 7 }];
    const used = kindsUsed(DEFAULT_WEIGHTS);
    expect(
      networkSignal(
        spreads.filter((s) => used.has(s.kind)),
        3,
      ),
    ).toEqual(networkSignal(spreads, 3));
  });

  it("counts a long text only as wide as three of its bands reached: one shared sentence is not the message", () => {
    const gates = { bandsAgree: 3, window: "week" } as const;
    const at = (s: KeySpread[]) => networkSignal(s, 3, W, gates).term;
    // One band (a sign-off many messages share) reached 40 sites, the others none.
    expect(at([text(40), text(0), text(0), text(0), text(0), text(0), text(0), text(0)])).toBe(0);
    // Three bands reached 5 or more: the message did; it counts as 5, not 40.
    const five = at([text(40), text(9), text(5), text(1), text(0), text(0), text(0), text(0)]);
    expect(five).toBe(at([text(5), text(5), text(5)]));
    expect(five).toBeGreaterThan(0);
    // A short text's whole is one key: it needs no agreement.
    expect(at([{ kind: "short", hour: 0, day: 5, week: 5 }])).toBeGreaterThan(0);
  });

  it("counts the last 24 hours with the day window: a week's slow spread of one question says nothing", () => {
    const day = { bandsAgree: 1, window: "day" } as const;
    expect(networkSignal([text(30, 2)], 3, W, day)).toEqual({ term: 0 });
    expect(networkSignal([text(30, 2)], 3, W, G).term).toBeGreaterThan(0);
    expect(networkSignal([text(6, 6)], 3, W, day).term).toBe(networkSignal([text(6, 6)], 3, W, G).term);
    // The sender's spread is discounted in the same window.
    const sender: KeySpread = { kind: "sender", hour: 6, day: 6, week: 6 };
    expect(networkSignal([text(6, 6), sender], 3, W, day)).toEqual({ term: 0 });
  });

  it("adds the term to the score's log-odds, monotone and inside (0, 1)", () => {
    expect(withNetwork(0.5, 0)).toBe(0.5);
    expect(withNetwork(0.5, Math.log(4))).toBeCloseTo(0.8, 10);
    expect(withNetwork(1, 3)).toBeLessThan(1);
    expect(withNetwork(0.3, 2)).toBeGreaterThan(withNetwork(0.2, 2));
  });
});
