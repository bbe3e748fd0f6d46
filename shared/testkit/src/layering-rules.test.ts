import { describe, expect, it } from "vitest";
import {
  domainOffences,
  findCycles,
  packageGraph,
  parseImports,
  productOnTooling,
  type DomainContext,
} from "./layering.ts";

/** The layering rules on small fabricated graphs: each one can fail. */
describe("the layering rules", () => {
  it("reads named, type-only, default, bare and dynamic imports and re-exports", () => {
    const source = [
      'import { a, type B, c as d } from "x";',
      'import type { E } from "./e.ts";',
      'import f from "f";',
      'import "side";',
      'export * from "./all.ts";',
      'export { g } from "./g.ts";',
      'const h = await import("node:net");',
    ].join("\n");
    expect(parseImports(source)).toEqual(
      expect.arrayContaining([
        { specifier: "x", names: ["a", "B", "c"] },
        { specifier: "./e.ts", names: ["E"] },
        { specifier: "./g.ts", names: ["g"] },
        { specifier: "f", names: [] },
        { specifier: "side", names: [] },
        { specifier: "./all.ts", names: [] },
        { specifier: "node:net", names: [] },
      ]),
    );
  });

  it("finds a cycle of two and of three, and none in a tree", () => {
    const two = new Map([
      ["a", ["b"]],
      ["b", ["a"]],
    ]);
    expect(findCycles(two)).toEqual([["a", "b", "a"]]);
    const three = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
    ]);
    expect(findCycles(three)).toHaveLength(1);
    const tree = new Map([
      ["a", ["b", "c"]],
      ["b", ["c"]],
      ["c", []],
    ]);
    expect(findCycles(tree)).toEqual([]);
  });

  const pkg = (name: string, facts: { deps?: string[]; dev?: string[]; imported?: string[] } = {}) => ({
    name,
    dependencies: facts.deps ?? [],
    devDependencies: facts.dev ?? [],
    imported: facts.imported ?? [],
  });

  it("sees a package cycle made by a file on one side and package.json on the other", () => {
    const graph = packageGraph([
      pkg("@sift/keystore", { deps: ["@sift/challenge"] }),
      pkg("@sift/challenge", { imported: ["@sift/keystore"] }),
    ]);
    expect(findCycles(graph).map((c) => c.join(" → "))).toEqual([
      "@sift/keystore → @sift/challenge → @sift/keystore",
    ]);
  });

  it("leaves a product package's tests to their tooling devDependency, but not a product file", () => {
    const tested = packageGraph([
      pkg("@sift/verify", { dev: ["@sift/testkit", "@sift/runtime"] }),
      pkg("@sift/testkit", { deps: ["@sift/verify"] }),
      pkg("@sift/runtime"),
    ]);
    expect(findCycles(tested)).toEqual([]);
    expect(productOnTooling(tested)).toEqual([]);

    const slipped = packageGraph([
      pkg("@sift/browser", { imported: ["@sift/testkit"] }),
      pkg("@sift/testkit", { deps: ["@sift/browser"] }),
      pkg("@sift/model", { deps: ["@sift/training"] }),
      pkg("@sift/training", { deps: ["@sift/model"] }),
    ]);
    expect(productOnTooling(slipped)).toEqual([
      "@sift/browser → @sift/testkit",
      "@sift/model → @sift/training",
    ]);
    expect(findCycles(slipped)).toHaveLength(2);
  });

  it("lets a tooling package depend on another and on the product", () => {
    const graph = packageGraph([
      pkg("@sift/bench", { deps: ["@sift/testkit", "@sift/model"] }),
      pkg("@sift/testkit"),
      pkg("@sift/model"),
    ]);
    expect(productOnTooling(graph)).toEqual([]);
  });

  it("flags a domain file that imports an I/O module, leaves domain/, or takes a client from a package", () => {
    const context: DomainContext = {
      resolveRelative: (s) => `/svc/src/domain/${s}`.replace("/domain/../", "/"),
      insideDomain: (path) => path.startsWith("/svc/src/domain/"),
      definingFile: (specifier, name) =>
        specifier.startsWith("@sift/") ? `/pkg/${specifier.slice(6)}/${name ?? "index"}.ts` : undefined,
      doesIo: (file) =>
        file.endsWith("/RedisStore.ts") || (file.startsWith("/pkg/runtime/") && !file.endsWith("/Clock.ts")),
    };
    const offences = domainOffences(
      parseImports(
        [
          'import { Redis } from "ioredis";',
          'import { readFileSync } from "node:fs";',
          'import { scorer } from "../clients/scorer.ts";',
          'import { rule } from "./rule.ts";',
          'import { RedisStore, pureThing } from "@sift/store";',
          'import { type Clock, bodyField } from "@sift/runtime";',
          'import { z } from "zod";',
        ].join("\n"),
      ),
      context,
    );
    expect(offences).toEqual([
      "ioredis (I/O module)",
      "node:fs (I/O module)",
      "../clients/scorer.ts (outside domain/)",
      "RedisStore from @sift/store (client, edge or I/O)",
      "bodyField from @sift/runtime (client, edge or I/O)",
    ]);
  });
});
