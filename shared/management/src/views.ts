import type { TokenRecord } from "@sift/keystore";
import type { TokenView } from "@sift/contracts";
import { iso } from "./context.ts";

/** How the API shows a token: ISO times, nulls rather than absent fields, never a hash. */
export const tokenView = (t: TokenRecord): TokenView => ({
  tokenId: t.tokenId,
  name: t.name,
  scope: t.scope,
  workspaceId: t.workspaceId ?? null,
  readOnly: t.readOnly,
  createdAt: iso(t.createdAt)!,
  expiresAt: iso(t.expiresAt),
  lastUsedAt: iso(t.lastUsedAt),
  revokedAt: iso(t.revokedAt),
});
