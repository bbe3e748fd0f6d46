import { z } from "zod";
import {
  CHALLENGE_DIFFICULTY,
  CHALLENGE_TTL_MS,
  ExternalId,
  Hostnames,
  KeyKind,
  Labels,
  Plan,
  WorkspaceLog,
} from "@sift/contracts";

export { KeyKind, Plan, Labels };

/** A Challenge configuration's settings, within the bounds of @sift/contracts (challenge.ts). */
export const Difficulty = z.number().int().min(CHALLENGE_DIFFICULTY.min).max(CHALLENGE_DIFFICULTY.max);
export const ChallengeTtlMs = z.number().int().min(CHALLENGE_TTL_MS.min).max(CHALLENGE_TTL_MS.max);

/** Defaults of ../shared/DESIGN.md. */
export const DEFAULT_ALLOWANCE = 1_000;
export const DEFAULT_RATE_LIMIT = 20;
export const DEFAULT_BURST = 40;

/** The longest configuration name, in UTF-16 units (what a table cell can show). */
export const CONFIG_NAME_MAX = 100;

export const Workspace = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
  allowance: z.number().int().nonnegative(),
  classify: z.boolean(),
  /** Requests per second for each classify key of the workspace. */
  rateLimit: z.number().positive(),
  burst: z.number().int().positive(),
  createdAt: z.number().int(),
  /** The verdict log's settings (@sift/verdicts); absent: DEFAULT_WORKSPACE_LOG's. */
  logPrivacy: WorkspaceLog.shape.privacy.optional(),
  logRetentionDays: WorkspaceLog.shape.retentionDays.optional(),
  logMaxEntries: WorkspaceLog.shape.maxEntries.optional(),
  /** Whether the workspace takes part in the network (docs/network.md); absent: it does. */
  network: z.boolean().optional(),
  /** A host's own id for the site (unique per deployment; docs/hosts.md). */
  externalId: ExternalId.optional(),
  /** A host's own tags, `k: v` (filterable with `label=k:v`). */
  labels: Labels.optional(),
  /** The last change through the management API, the CLI or the console (absent: never changed). */
  updatedAt: z.number().int().optional(),
});
export type Workspace = z.infer<typeof Workspace>;

export const Configuration = z.object({
  id: z.string(),
  workspaceId: z.string(),
  kind: KeyKind,
  keyId: z.string(),
  /** A name people give it in the console ("Contact form"); never part of an API answer. */
  name: z.string().max(CONFIG_NAME_MAX).optional(),
  siteKey: z.string().optional(),
  /** Challenge configurations: life of an issued challenge and its proof-of-work difficulty. */
  challengeTtlMs: ChallengeTtlMs.optional(),
  difficulty: Difficulty.optional(),
  /** Challenge configurations: raise the difficulty per client address under load (docs/challenge.md). */
  adaptive: z.boolean().optional(),
  /** Challenge configurations: the hosts whose pages may get a challenge; absent or empty: any. */
  hostnames: Hostnames.optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int().optional(),
});
export type Configuration = z.infer<typeof Configuration>;

/** What the gateway needs about a key, fetched in one round trip. */
export interface ResolvedKeyRecord {
  keyId: string;
  configId: string;
  kind: KeyKind;
  workspaceId: string;
  plan: Plan;
  classify: boolean;
  rateLimit: number;
  burst: number;
  allowance: number;
  /** The workspace's verdict log settings, defaults filled in. */
  log: WorkspaceLog;
  /** The network: whether the workspace takes part, and since when it exists (absent: a record older than the field). */
  network: { on: boolean; since?: number };
  /** A secret rotated away with a grace: when it stops (Redis expires the record then). */
  validUntil?: number;
}

export interface WorkspaceInput {
  name: string;
  plan: Plan;
  allowance?: number;
  externalId?: string;
  labels?: Labels;
}

/** A create or change that would give a second workspace an external id: the one that has it. */
export interface ExternalIdTaken {
  ok: false;
  existingId: string;
}

export type WorkspaceChanges = Partial<
  Pick<
    Workspace,
    | "plan"
    | "allowance"
    | "classify"
    | "rateLimit"
    | "burst"
    | "logPrivacy"
    | "network"
    | "logRetentionDays"
    | "logMaxEntries"
    | "name"
    | "labels"
  >
>;

export type ConfigChanges = Partial<
  Pick<Configuration, "challengeTtlMs" | "difficulty" | "adaptive" | "name" | "hostnames">
>;
