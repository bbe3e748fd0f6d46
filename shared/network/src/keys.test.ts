import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { NormalizedField } from "@sift/contracts";
import {
  contacts,
  domainOf,
  hashKeys,
  linkDomains,
  networkHasher,
  networkSecret,
  submissionKeys,
  textKeys,
  workspaceTag,
} from "./keys.ts";

const msg = (message: string, extra: NormalizedField[] = []): NormalizedField[] => [
  ["message", message],
  ...extra,
];
const LONG =
  "Hello, we noticed your website is not ranking on the first page of Google. Our team can fix that within a month.";

describe("a submission's network keys", () => {
  it("gives 8 MinHash bands for a long text, the same for a copy with other digits and case", () => {
    const a = textKeys(msg(LONG));
    const b = textKeys(msg(LONG.toUpperCase().replace("first", "1st")));
    expect(a).toHaveLength(8);
    expect(a.every((k) => k.startsWith("band:"))).toBe(true);
    // A near copy shares most bands; an unrelated text none.
    expect(a.filter((k) => b.includes(k)).length).toBeGreaterThanOrEqual(2);
    const other = textKeys(
      msg("Our shop will be closed on Monday for the bank holiday, back on Tuesday morning as usual."),
    );
    expect(a.filter((k) => other.includes(k))).toEqual([]);
  });

  it("gives the whole folded text for a short message of four words or more, nothing for fewer", () => {
    expect(textKeys(msg("I wanted to know your price"))).toEqual(["whole:i wanted to know your price"]);
    expect(textKeys(msg("I wanted to know your PRICE!!"))).toEqual(["whole:i wanted to know your price"]);
    expect(textKeys(msg("best song ever"))).toEqual([]);
    expect(textKeys(msg("thanks!"))).toEqual([]);
  });

  it("calls a long text's bands `text` and a short text's whole `short`, each asked for on its own", () => {
    expect(new Set(submissionKeys(msg(LONG)).map((k) => k.kind))).toEqual(new Set(["text"]));
    expect(submissionKeys(msg("I wanted to know your price"))).toEqual([
      { kind: "short", token: "whole:i wanted to know your price" },
    ]);
    // Honest bulk is mostly short: a deployment may weigh the bands and not the short texts.
    expect(
      submissionKeys(msg("I wanted to know your price"), undefined, undefined, new Set(["text"] as const)),
    ).toEqual([]);
    expect(submissionKeys(msg(LONG), undefined, undefined, new Set(["short"] as const))).toEqual([]);
  });

  it("keeps a link's registrable domain from the Public Suffix List, not popular or own domains", () => {
    const fields = msg(
      "see https://shop.cheap-pills.co.uk/buy?x=1 and https://cheap-pills.co.uk, and www.github.com/x and wikipedia.org and mysite.com and a.b.github.io",
    );
    expect(linkDomains(fields, new Set(["mysite.com"])).sort()).toEqual(["b.github.io", "cheap-pills.co.uk"]);
    // A file name or an unknown suffix is not a site; an e-mail's domain is a contact, not a link.
    expect(linkDomains(msg("open notes.txt and write to bob@seo-firm.com"), new Set())).toEqual([]);
  });

  it("finds phones however written, e-mail addresses and messaging handles", () => {
    const found = contacts([
      ["email", "Bob@Example.com"],
      ["message", "call +44 20 7946 0958 or 020 7946 0958, or t.me/cheapfollowers"],
    ]);
    // The sender's own address is a `sender` key, not a contact (it only lowers spreads).
    expect(found.sort()).toEqual(["handle:cheapfollowers", "phone:079460958"]);
    expect(contacts(msg("write to Sales@Cheap-Pills.example"))).toEqual(["email:sales@cheap-pills.example"]);
    expect(
      submissionKeys([
        ["email", "Bob@Example.com"],
        ["message", "hi"],
      ]),
    ).toEqual([{ kind: "sender", token: "sender:bob@example.com" }]);
    expect(contacts(msg("wa.me/15551234567 or @promo_king")).sort()).toEqual([
      "handle:promo_king",
      "phone:551234567",
    ]);
    // Years, prices and short numbers are not phones.
    expect(contacts(msg("in 2024 it cost 150 euros, order 4471"))).toEqual([]);
  });

  it("bounds the keys of any submission to 8 + 4 + 4 + 1", () => {
    const many = Array.from({ length: 30 }, (_, i) => `https://site${i}-example.com x${i}@mail${i}.com`).join(
      " ",
    );
    const keys = submissionKeys(msg(`${LONG} ${many}`));
    expect(keys.length).toBeLessThanOrEqual(17);
    expect(keys.filter((k) => k.kind === "link")).toHaveLength(4);
  });

  it("hashes every key with the deployment secret: no text in it, another secret other ids", () => {
    const keys = submissionKeys(msg("I wanted to know your price, call 0151 496 0123"));
    const a = hashKeys(networkSecret("secret-one"), keys);
    const b = hashKeys(networkSecret("secret-two"), keys);
    expect(a).toHaveLength(2);
    for (const k of a) {
      expect(k.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(k.shard).toBeGreaterThanOrEqual(0);
      expect(k.shard).toBeLessThan(64);
    }
    expect(a.map((k) => k.id)).not.toEqual(b.map((k) => k.id));
    expect(hashKeys(networkSecret("secret-one"), keys)).toEqual(a);
    // Exactly HMAC-SHA-256, truncated.
    const mac = createHmac("sha256", networkSecret("secret-one")).update(keys[0]!.token).digest();
    expect(a[0]!.id).toBe(mac.subarray(0, 9).toString("base64url"));
    expect(a[0]!.shard).toBe(mac[9]! % 64);
    const long = Buffer.alloc(100, 7);
    expect(hashKeys(long, keys)[0]!.id).toBe(
      createHmac("sha256", long).update(keys[0]!.token).digest().subarray(0, 9).toString("base64url"),
    );
    expect(workspaceTag(networkSecret("s"), "ws_1")).not.toEqual(workspaceTag(networkSecret("s"), "ws_2"));
    // The tag too is exactly HMAC-SHA-256, truncated: tags already stored keep matching.
    expect(workspaceTag(networkSecret("s"), "ws_1")).toBe(
      createHmac("sha256", networkSecret("s"))
        .update("workspace:ws_1")
        .digest()
        .subarray(0, 8)
        .toString("base64url"),
    );
    // A long message after a short one: the hasher's buffer grows and the result stays exact.
    const hasher = networkHasher(long);
    const short = { kind: "short" as const, token: "whole:a b c d" };
    const longer = { kind: "short" as const, token: `whole:${"é".repeat(400)}` };
    expect(hasher.keys([short, longer, short]).map((k) => k.id)).toEqual(
      [short, longer, short].map((k) =>
        createHmac("sha256", long).update(k.token).digest().subarray(0, 9).toString("base64url"),
      ),
    );
  });

  it("works out only the kinds asked for", () => {
    const fields = msg(
      "Rank first on Google in a week with our guaranteed SEO plan: https://rank-fast.example.net/offer or call 0151 496 0123",
      [["email", "seo@rank-fast.example.net"]],
    );
    expect(new Set(submissionKeys(fields).map((k) => k.kind))).toEqual(
      new Set(["text", "link", "contact", "sender"]),
    );
    const some = submissionKeys(fields, undefined, undefined, new Set(["link", "sender"] as const));
    expect(some).toEqual(submissionKeys(fields).filter((k) => k.kind === "link" || k.kind === "sender"));
    expect(submissionKeys(fields, undefined, undefined, new Set())).toEqual([]);
  });

  it("reads a site's own domain from an Origin or host, and refuses what is not one", () => {
    expect(domainOf("https://www.shop.example.co.uk/contact")).toBe("example.co.uk");
    expect(domainOf("not a url://")).toBeNull();
    expect(domainOf("127.0.0.1")).toBeNull();
  });
});
