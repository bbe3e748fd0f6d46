import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ClassifyMessage, VerifyMessage } from "./messages.ts";
import { AKISMET_PATHS, FRIENDLY_SITEVERIFY_PATH, SITEVERIFY_PATHS } from "./drop-in.ts";
import { ENDPOINTS, type EndpointTable } from "./endpoints.ts";
import { apiPaths, openApiDocument } from "./openapi.ts";

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

describe("the drop-in paths", () => {
  it("are listed, each with its one method (issue 38)", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const methods = (path: string) => Object.keys(paths[path] ?? {});
    expect(methods(AKISMET_PATHS.usageLimit)).toEqual(["get"]);
    expect(methods(AKISMET_PATHS.test)).toEqual(["get"]);
    for (const path of [
      AKISMET_PATHS.verifyKey,
      AKISMET_PATHS.getSubscription,
      AKISMET_PATHS.getStats,
      AKISMET_PATHS.commentCheck,
      AKISMET_PATHS.submitSpam,
      AKISMET_PATHS.submitHam,
      ...Object.values(SITEVERIFY_PATHS),
      FRIENDLY_SITEVERIFY_PATH,
    ]) {
      expect(methods(path), path).toEqual(["post"]);
    }
  });
});

describe("apiPaths", () => {
  it("lists one operation per method of a path and leaves the session entries (pages) out", () => {
    const common = {
      path: "/items",
      service: "classify",
      errors: "classify",
      upstreamDown: "internal",
    } as const;
    const table = {
      list: { ...common, method: "GET", access: "classify_key", doc: { summary: "list" } },
      add: { ...common, method: "POST", access: "classify_key", doc: { summary: "add" } },
      pages: { ...common, method: "GET", path: "/console", access: "session", prefix: true },
    } satisfies EndpointTable;
    expect(apiPaths(table)).toEqual({ "/items": { get: { summary: "list" }, post: { summary: "add" } } });
    expect(Object.keys(apiPaths(ENDPOINTS))).toEqual(["/classify", "/verify", "/feedback", "/challenge"]);
  });
});
