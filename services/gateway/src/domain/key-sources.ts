/**
 * Where a secret key can come from (spec 5): `Authorization: Bearer`, `X-Api-Key`, body
 * `secretKey`. An empty value counts as not sent; a body `secretKey` that is not a string
 * (a number, an object, a repeated form field) is sent but can never be valid.
 */
export interface KeySources {
  authorization?: string | undefined;
  apiKey?: string | string[] | undefined;
  body?: unknown;
}

export type KeyChoice = { kind: "missing" } | { kind: "invalid" } | { kind: "key"; key: string };

type Sent = { kind: "absent" } | { kind: "invalid" } | { kind: "key"; key: string };

const BEARER = /^bearer[ \t]+(.+)$/i;

const fromAuthorization = (header: string | undefined): Sent => {
  const match = header === undefined ? null : BEARER.exec(header.trim());
  return match ? { kind: "key", key: match[1]!.trim() } : { kind: "absent" };
};

const fromValue = (value: unknown): Sent => {
  if (value === undefined || value === null || value === "") return { kind: "absent" };
  return typeof value === "string" ? { kind: "key", key: value } : { kind: "invalid" };
};

/** Classify: every key sent must be identical, else `Invalid secret key` (spec 5.1.2). */
export const classifyKey = (sources: KeySources): KeyChoice => {
  const sent = [fromAuthorization(sources.authorization), fromValue(sources.apiKey), fromValue(sources.body)];
  const present = sent.filter((s) => s.kind !== "absent");
  const first = present[0];
  if (!first) return { kind: "missing" };
  if (first.kind === "invalid") return { kind: "invalid" };
  const same = present.every((s) => s.kind === "key" && s.key === first.key);
  return same ? first : { kind: "invalid" };
};

/** Verify: the body wins, then `X-Api-Key`, then the bearer token (DESIGN.md). */
export const verifyKey = (sources: KeySources): KeyChoice => {
  for (const sent of [
    fromValue(sources.body),
    fromValue(sources.apiKey),
    fromAuthorization(sources.authorization),
  ]) {
    if (sent.kind !== "absent") return sent;
  }
  return { kind: "missing" };
};
