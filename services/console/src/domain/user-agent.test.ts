import { describe, expect, it } from "vitest";
import { summarizeUserAgent } from "./user-agent.ts";

describe("summarizeUserAgent", () => {
  it("names the browser, its major version and the system", () => {
    expect(summarizeUserAgent("Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0")).toBe(
      "Firefox 132 on Linux",
    );
    expect(
      summarizeUserAgent(
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      ),
    ).toBe("Edge 131 on Windows");
    expect(
      summarizeUserAgent(
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      ),
    ).toBe("Safari 17 on iOS");
  });

  it("shows an unknown one cut short, and says so when there is none", () => {
    expect(summarizeUserAgent("x".repeat(100))).toBe(`${"x".repeat(60)}…`);
    expect(summarizeUserAgent("<script>alert(1)</script>")).toBe("<script>alert(1)</script>");
    expect(summarizeUserAgent(undefined)).toBe("Unknown browser");
  });
});
