import type { Configuration, TokenRecord, Workspace } from "@sift/keystore";
import type { ConfigurationView, TokenView, WorkspaceView } from "@sift/contracts";
import { iso } from "./context.ts";

/** How the API shows a record: ISO times, nulls rather than absent fields, never a hash. */
export const workspaceView = (w: Workspace): WorkspaceView => ({
  id: w.id,
  name: w.name,
  plan: w.plan,
  allowance: w.allowance,
  classify: w.classify,
  externalId: w.externalId ?? null,
  labels: w.labels ?? {},
  createdAt: iso(w.createdAt)!,
  updatedAt: iso(w.updatedAt ?? w.createdAt)!,
});

export const configurationView = (c: Configuration): ConfigurationView => ({
  id: c.id,
  workspaceId: c.workspaceId,
  kind: c.kind,
  name: c.name ?? null,
  ...(c.kind === "challenge"
    ? {
        ...(c.siteKey ? { siteKey: c.siteKey } : {}),
        hostnames: c.hostnames ?? [],
        ...(c.difficulty === undefined ? {} : { difficulty: c.difficulty }),
        ...(c.challengeTtlMs === undefined ? {} : { challengeTtlSeconds: c.challengeTtlMs / 1000 }),
        adaptive: c.adaptive ?? false,
      }
    : {}),
  createdAt: iso(c.createdAt)!,
  updatedAt: iso(c.updatedAt ?? c.createdAt)!,
});

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
