import { describe, expect, it } from "vitest";
import { change } from "./overview.ts";
import { REVIEW_DEFAULTS, senderAddress } from "./review.ts";
import { parseVerdictQuery, queryHref, verdictFilter } from "./verdict-query.ts";

describe("the verdict filters in the query string", () => {
  it("reads every filter and turns the date range into whole UTC days", () => {
    const q = parseVerdictQuery({
      label: "spam",
      config: "cfg_1",
      min: "0.4",
      max: "0.8",
      hit: "yes",
      reviewed: "no",
      from: "2026-11-01",
      to: "2026-11-02",
      reason: "“audit”",
      text: "hello",
    });
    expect(verdictFilter(q, true)).toEqual({
      label: "spam",
      configId: "cfg_1",
      scoreMin: 0.4,
      scoreMax: 0.8,
      listHit: true,
      reviewed: false,
      from: Date.UTC(2026, 10, 1),
      to: Date.UTC(2026, 10, 3),
      reason: "“audit”",
      text: "hello",
    });
    // Text only where the full content is kept.
    expect(verdictFilter(q, false).text).toBeUndefined();
  });

  it("drops what does not parse rather than failing", () => {
    const q = parseVerdictQuery({
      label: "ham",
      min: "2",
      max: "x",
      from: "yesterday",
      cursor: "nope",
      hit: ["yes", "no"],
    });
    expect(verdictFilter(q, true)).toEqual({});
    expect(q.cursor).toBe("");
  });

  it("applies a screen's defaults only to fields the query does not name", () => {
    expect(verdictFilter(parseVerdictQuery({}, REVIEW_DEFAULTS), false)).toEqual({
      operation: "classify",
      scoreMin: 0.4,
      scoreMax: 0.9,
      reviewed: false,
    });
    expect(verdictFilter(parseVerdictQuery({ min: "", max: "" }, REVIEW_DEFAULTS), false)).toEqual({
      operation: "classify",
      reviewed: false,
    });
  });

  it("writes links with the set fields, or every field when the screen has defaults", () => {
    const q = parseVerdictQuery({ label: "spam" });
    expect(queryHref("/s", q)).toBe("/s?label=spam");
    expect(queryHref("/s", q, { cursor: "v00000000012345678" })).toBe(
      "/s?label=spam&cursor=v00000000012345678",
    );
    expect(queryHref("/s", q, {}, true)).toMatch(/^\/s\?label=spam&operation=&config=&min=&max=/);
  });
});

describe("the review queue's and the overview's helpers", () => {
  it("finds the sender's address, fields named like e-mail first", () => {
    expect(
      senderAddress([
        ["message", "write to a@b.example"],
        ["reply", "x@y.example"],
        ["E-mail", "Me@Shop.Example"],
      ]),
    ).toEqual({
      email: "me@shop.example",
      domain: "shop.example",
    });
    expect(senderAddress([["message", "no address here"]])).toBeNull();
  });

  it("words a change against the period before", () => {
    expect(change(4, 2)).toBe("+100 %");
    expect(change(1, 4)).toBe("−75 %");
    expect(change(3, 0)).toBe("new");
    expect(change(0, 0)).toBe("no change");
    expect(change(5, 5)).toBe("no change");
  });
});
