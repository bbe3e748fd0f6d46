import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ClassifyMessage, VerifyMessage } from "./messages.ts";
import { openApiDocument } from "./openapi.ts";

describe("docs/openapi.json", () => {
  const committed = JSON.parse(
    readFileSync(new URL("../../../docs/openapi.json", import.meta.url), "utf8"),
  ) as unknown;

  it("is what the contracts generate (run `pnpm openapi` after changing them)", () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(openApiDocument())));
  });

  it("names every message text of the spec", () => {
    const text = JSON.stringify(committed);
    const texts = [...Object.values(ClassifyMessage), ...Object.values(VerifyMessage)];
    expect(texts.filter((t) => !text.includes(JSON.stringify(t)))).toEqual([]);
  });
});
