import type { ResolvedKey } from "@sift/contracts";
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
