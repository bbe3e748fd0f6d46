import { describe, expect, it } from "vitest";
import { checkPassword, hashPassword, needsRehash, PASSWORD_PARAMS, passwordProblem } from "./password.ts";

describe("passwords", () => {
  it("hashes with Argon2id, records the parameters and checks the password", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await checkPassword(stored, "correct horse battery")).toBe(true);
    expect(await checkPassword(stored, "correct horse battery!")).toBe(false);
    expect(await checkPassword("not a hash", "x")).toBe(false);
  });

  it("asks for a new hash when the stored one is weaker than today's parameters", async () => {
    const weak = await hashPassword("correct horse battery", { ...PASSWORD_PARAMS, memoryCost: 8_192 });
    expect(needsRehash(weak)).toBe(true);
    expect(needsRehash(await hashPassword("correct horse battery"))).toBe(false);
    expect(needsRehash("$scrypt$whatever")).toBe(true);
  });

  it("refuses short passwords", () => {
    expect(passwordProblem("short")).toMatch(/at least/);
    expect(passwordProblem("long enough pass")).toBeNull();
  });
});
