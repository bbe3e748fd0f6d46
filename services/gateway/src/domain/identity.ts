import type { Identity, ResolvedKey } from "@sift/contracts";
import type { ResolvedKeyRecord } from "@sift/keystore";

/** The part of a resolved key a service needs, as it travels in the signed identity. */
export const resolvedKey = (record: ResolvedKeyRecord): ResolvedKey => ({
  status: "valid",
  keyId: record.keyId,
  configId: record.configId,
  workspaceId: record.workspaceId,
  kind: record.kind,
  plan: record.plan,
  allowance: record.allowance,
});

/** The identity the gateway signs for one call of `route`, issued now (`client`: the caller's address). */
export const identityFor = (
  route: string,
  requestId: string,
  now: number,
  key: Identity["key"],
  client?: string,
): Identity => ({
  requestId,
  iat: now,
  route,
  ...(client === undefined ? {} : { client: client.slice(0, 128) }),
  key,
});
