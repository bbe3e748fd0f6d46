import { describe, expect, it } from "vitest";
import { MINUTE } from "@sift/runtime";
import { signingSecretRing } from "./signing-ring.ts";
import { parseSigningSecrets, SigningSecretRing } from "./signing-secrets.ts";

const secret = "s".repeat(32);

describe("signing key ring", () => {
  const t = Date.UTC(2026, 0, 1);
  const ring = new SigningSecretRing(
    [
      { id: "new", secret, notBefore: t },
      { id: "old", secret, notBefore: 0 },
    ],
    60 * MINUTE,
  );

  it("signs with the newest key whose time has come", () => {
    expect(ring.active(t - 1).id).toBe("old");
    expect(ring.active(t).id).toBe("new");
  });

  it("accepts the previous key until its overlap ends, and a future key not yet", () => {
    expect(ring.accepting("old", t + 59 * MINUTE)?.id).toBe("old");
    expect(ring.accepting("old", t + 60 * MINUTE)).toBeNull();
    expect(ring.accepting("new", t - 1)).toBeNull();
    expect(ring.accepting("unknown", t)).toBeNull();
  });

  it("refuses short secrets and duplicate ids", () => {
    expect(() => new SigningSecretRing([{ id: "a", secret: "short", notBefore: 0 }])).toThrow(/shorter/);
    expect(
      () =>
        new SigningSecretRing([
          { id: "a", secret, notBefore: 0 },
          { id: "a", secret, notBefore: 1 },
        ]),
    ).toThrow(/unique/);
  });

  it("parses id:secret[@notBefore] entries", () => {
    expect(parseSigningSecrets(`k1:${secret}, k2:${secret}@2026-01-01T00:00:00Z\nk3:${secret}@5`)).toEqual([
      { id: "k1", secret, notBefore: 0 },
      { id: "k2", secret, notBefore: t },
      { id: "k3", secret, notBefore: 5 },
    ]);
    expect(() => parseSigningSecrets("nocolon")).toThrow();
    expect(() => parseSigningSecrets(`k:${secret}@someday`)).toThrow(/notBefore/);
  });
});

describe("signingSecretRing", () => {
  it("uses the configured keys when set, else one key derived from the internal secret", () => {
    expect(signingSecretRing(`k9:${secret}`, "i".repeat(32)).active(0).id).toBe("k9");
    const derived = signingSecretRing(undefined, "i".repeat(32)).active(0);
    expect(derived.id).toBe("derived");
    expect(derived.secret).not.toContain("iiii");
    expect(signingSecretRing("", "j".repeat(32)).active(0).secret).not.toBe(derived.secret);
  });
});
