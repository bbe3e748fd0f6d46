import { createHmac } from "node:crypto";
import { parseSigningKeys, SigningKeyRing } from "./keys.ts";

/**
 * The ring a service runs with: the configured keys (`SIFT_CHALLENGE_KEYS`, parsed by
 * parseSigningKeys) when set; otherwise one key derived from the internal secret, so a
 * deployment works with one secret and rotates by setting SIFT_CHALLENGE_KEYS later.
 */
export const challengeKeyRing = (configured: string | undefined, internalSecret: string): SigningKeyRing => {
  if (configured?.trim()) return new SigningKeyRing(parseSigningKeys(configured));
  const derived = createHmac("sha256", internalSecret)
    .update("sift challenge signing key v1")
    .digest("base64url");
  return new SigningKeyRing([{ id: "derived", secret: derived, notBefore: 0 }]);
};
