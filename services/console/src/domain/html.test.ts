import { describe, expect, it } from "vitest";
import { escapeText, html, trusted } from "./html.ts";

describe("html", () => {
  it("escapes every interpolated string, in text and in attributes", () => {
    const hostile = `"><img src=x onerror=alert(1)><script>alert('x')</script>&`;
    const out = html`<p title="${hostile}">${hostile}</p>`.toString();
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<script");
    expect(out).toBe(
      `<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;">` +
        `&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>`,
    );
  });

  it("keeps nested templates and trusted markup, joins lists, drops null, undefined and false", () => {
    const items = ["a<b", "c"].map((s) => html`<li>${s}</li>`);
    const list = ["<ul>", "</ul>"];
    // prettier-ignore
    const out = html`${trusted(list[0]!)}${items}${trusted(list[1]!)}${null}${undefined}${false}${0}${trusted("<hr>")}`.toString();
    expect(out).toBe("<ul><li>a&lt;b</li><li>c</li></ul>0<hr>");
  });

  it("escapes the backtick and both quotes", () => {
    expect(escapeText("`'\"")).toBe("&#96;&#39;&quot;");
  });
});
