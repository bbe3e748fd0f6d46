import { describe, expect, it } from "vitest";
import { extractLinks } from "../links.ts";
import { linkSignals, tldClass } from "./links.ts";
import { foldText } from "./phrasing.ts";

const signals = (raw: string): string[] => {
  const { text, hosts, linkChars } = extractLinks(raw);
  const out: string[] = [];
  linkSignals({ raw, stripped: text, folded: foldText(text), hosts, linkChars, tokens: [] }, out);
  return out;
};

describe("link signals", () => {
  it("sees HTML anchors and BBCode links that comment spam pastes", () => {
    expect(signals('Nice! <a href="http://pills.example.xyz">cheap pills</a>')).toContain("link:html");
    expect(signals("Nice! [url=http://pills.example.xyz]cheap pills[/url]")).toContain("link:bbcode");
    expect(signals("Nice post, see you")).toEqual([]);
  });

  it("finds a domain written bare, without scheme or path", () => {
    expect(signals("best deals at cheapdeals.online today")).toContain("link:bare");
    expect(signals("see version 1.2 e.g. this")).not.toContain("link:bare");
  });

  it("measures how much of the text is links", () => {
    expect(signals("https://a-long-spam-domain.example.com/some/long/path/to/a/page ok")).toContain(
      "link:share>50%",
    );
    expect(
      signals(
        "I read your article about sourdough starters and have a question: https://en.wikipedia.org/wiki/Sourdough what flour do you use for it, and how warm should the kitchen be?",
      ),
    ).not.toContain("link:share>50%");
  });

  it("classes hosts: shorteners, listed spam sites, cheap TLDs", () => {
    expect(signals("click https://bit.ly/3abc")).toContain("link:shortener");
    expect(signals("https://www.wikipedia.org/wiki/X")).not.toContain("link:shortener");
    expect(signals("https://my-offer.xyz/x")).toContain("link:tld:cheap");
    expect(tldClass("shop.example.de")).toBe("country");
    expect(tldClass("example.com")).toBe("generic");
  });
});
