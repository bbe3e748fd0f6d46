import { describe, expect, it } from "vitest";
import { matchLists, normalizeListValue, type ListEntry } from "./lists.ts";

describe("normalizeListValue", () => {
  it("keeps a domain's host only, an e-mail address, and a folded phrase", () => {
    expect(normalizeListValue("domain", "https://WWW.Spam.Example/path?q")).toBe("spam.example");
    expect(normalizeListValue("domain", "not a domain")).toBeNull();
    expect(normalizeListValue("email", " Bob@Mail.Example ")).toBe("bob@mail.example");
    expect(normalizeListValue("email", "bob")).toBeNull();
    expect(normalizeListValue("phrase", "  Free   SEO Audit ")).toBe("free seo audit");
    expect(normalizeListValue("phrase", "x".repeat(201))).toBeNull();
  });
});

describe("matchLists", () => {
  const entries: ListEntry[] = [
    { kind: "block", type: "domain", value: "spam.example" },
    { kind: "block", type: "email", value: "bob@mail.example" },
    { kind: "allow", type: "phrase", value: "order number" },
  ];

  it("matches a domain in links, addresses and bare mentions, subdomains included", () => {
    for (const value of [
      "see https://shop.spam.example/x",
      "write to me@spam.example",
      "visit spam.example today",
    ]) {
      expect(matchLists([["message", value]], entries).map((m) => m.value)).toEqual(["spam.example"]);
    }
    expect(matchLists([["message", "notspam.example is fine"]], entries)).toEqual([]);
  });

  it("matches an e-mail address exactly and a phrase anywhere, the allow entries first", () => {
    const matches = matchLists(
      [
        ["email", "BOB@mail.example"],
        ["message", "My Order Number is 12"],
      ],
      entries,
    );
    expect(matches.map((m) => [m.kind, m.type, m.field])).toEqual([
      ["allow", "phrase", "message"],
      ["block", "email", "email"],
    ]);
  });
});
