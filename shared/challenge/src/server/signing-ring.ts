import { createHmac } from "node:crypto";
import { parseSigningSecrets, SigningSecretRing } from "./signing-secrets.ts";

/**
 * The ring a service runs with: the configured secrets (`SIFT_CHALLENGE_KEYS`, parsed by
 * parseSigningSecrets) when set; otherwise one derived from the internal secret, so a
 * deployment works with one secret and rotates by setting SIFT_CHALLENGE_KEYS later.
 */
export const signingSecretRing = (
  configured: string | undefined,
  internalSecret: string,
): SigningSecretRing => {
  if (configured?.trim()) return new SigningSecretRing(parseSigningSecrets(configured));
  const derived = createHmac("sha256", internalSecret)
    .update("sift challenge signing key v1")
    .digest("base64url");
  return new SigningSecretRing([{ id: "derived", secret: derived, notBefore: 0 }]);
};
