import { describe, expect, it } from "vitest";
import { addressesIn, cut, followable, pieces, reasonText, visibleText } from "./display.ts";

describe("showing attacker-written text", () => {
  it("turns bidi overrides, isolates, zero-width and control characters into visible escapes", () => {
    expect(visibleText("invoice\u202Efdp.exe")).toBe("invoice\\u202Efdp.exe");
    expect(visibleText("a\u2066b\u2069c\u200Bd\uFEFFe\u0000f\u0085g\u2028h")).toBe(
      "a\\u2066b\\u2069c\\u200Bd\\uFEFFe\\u0000f\\u0085g\\u2028h",
    );
    expect(pieces("x\u202Ey")).toEqual([{ text: "x" }, { escape: "\\u202E" }, { text: "y" }]);
  });

  it("keeps tabs, line feeds and every visible character, right-to-left letters included", () => {
    expect(visibleText("line 1\n\tline 2 שלום ✓")).toBe("line 1\n\tline 2 שלום ✓");
  });

  it("cuts long text on whole code points and says so", () => {
    expect(cut("😀😀😀", 2)).toEqual({ head: "😀😀", cut: true });
    expect(cut("short", 10)).toEqual({ head: "short", cut: false });
  });

  it("finds only http and https addresses, and follows only those", () => {
    expect(addressesIn("see https://a.example/x?y=1, and javascript:alert(1) or http://b.example.")).toEqual([
      "https://a.example/x?y=1",
      "http://b.example",
    ]);
    expect(followable("javascript:alert(1)")).toBeNull();
    expect(followable("data:text/html,x")).toBeNull();
    expect(followable("https://a.example/")?.hostname).toBe("a.example");
  });

  it("names a reason in either stored shape", () => {
    expect(reasonText({ signal: "word", weight: 1, field: "message", label: "“audit”" })).toBe(
      "“audit” (message)",
    );
    expect(reasonText({ signal: "link_shortener", weight: 1 })).toBe("link_shortener");
    expect(reasonText({ field: "message", weight: -0.3 })).toBe("message");
    expect(reasonText("plain")).toBe("plain");
    expect(reasonText(42)).toBe("42");
  });
});
