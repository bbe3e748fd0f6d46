import { describe, expect, it } from "vitest";
import { requiredLiterals } from "./literals.ts";
import { portPerl, splitPerl } from "./perl-regex.ts";

describe("portPerl", () => {
  it("keeps a pattern both languages read alike, with its case flag", () => {
    expect(portPerl("/\\bclaim (?:the|this) money/i")).toEqual({
      ok: true,
      source: "\\bclaim (?:the|this) money",
      flags: "i",
    });
  });

  it("spells Perl's anchors and a leading (?i) the JavaScript way", () => {
    expect(portPerl("m{(?i)\\Aurgent reply\\z}")).toEqual({ ok: true, source: "^urgent reply$", flags: "i" });
  });

  it("drops /x white space and comments outside classes, not inside them", () => {
    expect(portPerl("/wire \\s transfer [ ]now # a comment\n/x")).toMatchObject({
      source: "wire\\stransfer[ ]now",
    });
  });

  it("names what it cannot port rather than changing its meaning", () => {
    expect(portPerl("/(?>money)+/")).toEqual({ ok: false, reason: "atomic group (?>…)" });
    expect(portPerl("/a(?i:b)/")).toEqual({ ok: false, reason: "scoped modifiers (?i:…)" });
    expect(portPerl("/[[:alpha:]]+/")).toEqual({ ok: false, reason: "a POSIX character class" });
    expect(portPerl("eval:check_stuff()")).toMatchObject({ ok: false });
  });

  it("reads the delimiters SpamAssassin's files use", () => {
    expect(splitPerl("m!a/b!i")).toEqual({ pattern: "a/b", flags: "i" });
    expect(splitPerl("/a/")).toEqual({ pattern: "a", flags: "" });
  });
});

describe("requiredLiterals", () => {
  it("keys a pattern on the longest run every match contains, lower-cased", () => {
    expect(requiredLiterals("\\bDear Beneficiary\\b")).toEqual(["dear beneficiary"]);
    expect(requiredLiterals("colou?r scheme")).toEqual(["r scheme"]);
  });

  it("keys an alternation on each branch's literal, and none if one branch has none", () => {
    expect(requiredLiterals("(?:lottery|sweepstake)s? winner notice")).toEqual([" winner notice"]);
    expect(requiredLiterals("(?:lottery|sweepstake)s? win")).toEqual(["lottery", "sweepstake"]);
    expect(requiredLiterals("lottery|sweepstake")).toEqual(["lottery", "sweepstake"]);
    expect(requiredLiterals("lottery|\\d+")).toBeUndefined();
  });

  it("never keys on an optional group or a lookaround", () => {
    expect(requiredLiterals("(?:jackpot)?ab")).toBeUndefined();
    expect(requiredLiterals("(?!affordable)ab")).toBeUndefined();
  });
});
