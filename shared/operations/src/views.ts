import type { ConfigurationView, TokenView, WorkspaceSettings, WorkspaceView } from "@sift/contracts";
import type { Configuration, TokenRecord, Workspace } from "@sift/keystore";
import { iso, type OperationDeps } from "./context.ts";

/** How every door shows a workspace: ISO times, nulls rather than absent fields, its four settings. */
export const workspaceView = (w: Workspace, settings: Omit<WorkspaceSettings, "network">): WorkspaceView => ({
  id: w.id,
  name: w.name,
  plan: w.plan,
  allowance: w.allowance,
  classify: w.classify,
  externalId: w.externalId ?? null,
  labels: w.labels ?? {},
  strictness: settings.strictness,
  shareReports: settings.shareReports,
  // Absent on records older than the field: such a workspace takes part (docs/network.md).
  network: w.network !== false,
  languages: settings.languages,
  createdAt: iso(w.createdAt)!,
  updatedAt: iso(w.updatedAt ?? w.createdAt)!,
});

/** A workspace's view with the settings kept beside its learned state (one round trip of its slot). */
export const readWorkspaceView = async (
  deps: Pick<OperationDeps, "reports">,
  w: Workspace,
): Promise<WorkspaceView> => workspaceView(w, await deps.reports.settings(w.id));

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

/** How every door shows a token: ISO times, nulls rather than absent fields, never a hash. */
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
