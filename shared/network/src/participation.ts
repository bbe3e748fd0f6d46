import type { NetworkWeights } from "./spread.ts";

/**
 * The deployment's network settings (SIFT_NETWORK, SIFT_NETWORK_MIN_AGE, SIFT_NETWORK_MIN_SITES,
 * SIFT_NETWORK_WEIGHTS).
 */
export interface NetworkSettings {
  on: boolean;
  /** A workspace counts toward others' spreads only once it is this old. */
  minAgeMs: number;
  /** Nothing is said of a key fewer other workspaces sent. */
  minSites: number;
  /** The term's weights (SIFT_NETWORK_WEIGHTS); absent: DEFAULT_WEIGHTS (fitted). */
  weights?: NetworkWeights;
}

/** What a key record says of its workspace (the identity's `network`); absent: a record older than it. */
export interface WorkspaceNetwork {
  on: boolean;
  since?: number;
}

/**
 * Whether a call asks the network at all (the deployment and the workspace take part) and
 * whether its workspace gives (counts toward other sites' spreads): only once it is older than
 * `minAgeMs`, so fresh sign-ups cannot make their own campaign look spread. A key record written
 * before the network has no creation time: its workspace predates this release, so it is old
 * enough (a workspace made now always has one).
 */
export const participation = (
  settings: NetworkSettings,
  workspace: WorkspaceNetwork | undefined,
  now: number,
): { ask: boolean; give: boolean } => {
  if (!settings.on || workspace?.on === false) return { ask: false, give: false };
  const since = workspace?.since;
  return { ask: true, give: since === undefined || now - since >= settings.minAgeMs };
};
