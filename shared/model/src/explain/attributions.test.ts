import { describe, expect, it } from "vitest";
import type { NormalizedField } from "@sift/contracts";
import { featurize } from "../features/featurize.ts";
import { attributions } from "./attributions.ts";

const FORMS: ReadonlyArray<readonly NormalizedField[]> = [
  [
    ["name", "QuickBooks Support"],
    ["email", "help4you@mailinator.com"],
    [
      "message",
      "Great post! Call our QuickBooks support phone number +1-800-555-0199 now, see https://bit.ly/x and mail deals@cheap.example 😀",
    ],
  ],
  [
    [
      "message",
      "Hi, I noticed your website is not ranking. We offer affordable SEO services. Reply for a free audit!",
    ],
  ],
  [
    ["your-name", "Anna"],
    ["website", "https://www.example.org/page"],
    ["your-message", "Ist der blaue Sessel noch zu haben? Ich könnte am Samstag vorbeikommen."],
  ],
  [["message", "สวัสดีครับ 𝐟𝐫𝐞𝐞 โบนัส 100% คลิก"]],
];

describe("attributions", () => {
  it.each(FORMS.map((f, i) => [i, f] as const))(
    "account for every feature the featuriser makes (form %i), and for nothing else",
    (_i, fields) => {
      const made = new Set(featurize(fields).ids);
      const claimed = new Set(attributions(fields).flatMap((a) => a.ids));
      expect([...made].filter((id) => !claimed.has(id))).toEqual([]);
      expect([...claimed].filter((id) => !made.has(id))).toEqual([]);
    },
  );

  it("names the form signals a helpline comment fires, by code and words, in their fields", () => {
    const found = attributions(FORMS[0]!).map(({ code, label, field }) => ({ code, label, field }));
    expect(found).toContainEqual({
      code: "tollfree_phone",
      label: "toll-free helpline number",
      field: "message",
    });
    expect(found).toContainEqual({
      code: "url_shortener",
      label: "link to a URL shortener",
      field: "message",
    });
    expect(found).toContainEqual({
      code: "disposable_email",
      label: "e-mail on a throw-away domain",
      field: "email",
    });
    expect(found).toContainEqual({ code: "word", label: "“quickbooks”", field: "message" });
    expect(found).toContainEqual({ code: "link_site", label: "a link to bit.ly", field: "message" });
  });

  it("names an SEO pitch and the words it is made of", () => {
    const found = attributions(FORMS[1]!);
    expect(found.some((a) => a.code === "seo_pitch" && a.label.startsWith("SEO or marketing pitch"))).toBe(
      true,
    );
    expect(found.filter((a) => a.code === "word").map((a) => a.label)).toEqual(
      expect.arrayContaining(["“seo”", "“audit”", "“ranking”"]),
    );
  });
});
