import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LogKeyRing } from "@sift/verdicts";
import { localLogKeys } from "../../../infra/local/log-keys.ts";

describe("the local stack's log key (pnpm start)", () => {
  it("is made once, kept private in .sift/, read again at the next start, and seals", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "sift-keys-")), ".sift");
    const first = localLogKeys({}, dir);
    expect(first.made).toBe(true);
    expect(statSync(first.file!).mode & 0o777).toBe(0o600);
    const again = localLogKeys({}, dir);
    expect(again).toEqual({ keys: first.keys, made: false, file: first.file });
    expect(readFileSync(first.file!, "utf8").trim()).toBe(first.keys);
    const ring = LogKeyRing.parse(again.keys);
    expect(ring.canSeal).toBe(true);
    expect(ring.open(ring.seal("hello", "ws/v1"), "ws/v1")).toBe("hello");
  });

  it("leaves a SIFT_LOG_KEYS from the environment as it is", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "sift-keys-")), ".sift");
    expect(localLogKeys({ SIFT_LOG_KEYS: "prod:abc" }, dir)).toEqual({
      keys: "prod:abc",
      made: false,
      file: null,
    });
  });
});
