import type { Result } from "ioredis";
import { workspaceLogFrom } from "@sift/contracts";
import { WORKSPACE_FIELDS } from "./scripts.ts";
import { Configuration, Workspace, type KeyKind, type Plan, type ResolvedKeyRecord } from "./types.ts";

/**
 * What the key store holds, as Redis hashes: a workspace, a configuration, a key record (the
 * gateway's one read), and the messages its changes announce. The classes (workspace-records.ts,
 * keystore.ts) read and write through these.
 */
/** The messages on the key-changes channel: a secret's record is gone, or a workspace changed. */
export const keyChange = {
  key: (secretHash: string) => `key:${secretHash}`,
  workspace: (workspaceId: string) => `ws:${workspaceId}`,
};

/** A key record: what the gateway needs, from the configuration and the workspace hash. */
export const keyRecord = (
  config: Pick<Configuration, "id" | "workspaceId" | "kind" | "keyId">,
  workspace: Record<string, string>,
): Record<string, string> => ({
  configId: config.id,
  workspaceId: config.workspaceId,
  kind: config.kind,
  keyId: config.keyId,
  rev: workspace["rev"] ?? "0",
  ...Object.fromEntries(WORKSPACE_FIELDS.map((f) => [f, workspace[f] ?? ""])),
});

export const workspaceFields = (workspace: Record<string, string>): string[] =>
  WORKSPACE_FIELDS.flatMap((f) => [f, workspace[f] ?? ""]);

export const toRecord = ([
  configId,
  workspaceId,
  kind,
  keyId,
  plan,
  classify,
  rateLimit,
  burst,
  allowance,
  logPrivacy,
  logRetentionDays,
  logMaxEntries,
  createdAt,
  network,
  validUntil,
]: readonly [...ResolveRow, ...unknown[]]): ResolvedKeyRecord => ({
  configId,
  workspaceId,
  kind: kind as KeyKind,
  keyId,
  plan: plan as Plan,
  classify: classify === "1",
  rateLimit: Number(rateLimit),
  burst: Number(burst),
  allowance: Number(allowance),
  log: workspaceLogFrom({ logPrivacy, logRetentionDays, logMaxEntries }),
  network: {
    on: network !== "0",
    ...(createdAt && Number.isFinite(Number(createdAt)) ? { since: Number(createdAt) } : {}),
  },
  ...(validUntil ? { validUntil: Number(validUntil) } : {}),
});

/**
 * configId, workspaceId, kind, keyId, plan, classify, rateLimit, burst, allowance, then the log's
 * privacy, retention days and max entries, the workspace's creation time and network choice
 * (null or '' in a record written before them), and the end of a rotated-away secret's grace.
 */
export type ResolveRow = [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
];

declare module "ioredis" {
  interface RedisCommander<Context> {
    siftResolveAndTake(key: string, now: number): Result<[...ResolveRow, number] | null, Context>;
    siftSyncKey(key: string, rev: number, ...fieldsAndValues: string[]): Result<number, Context>;
    siftSwapSecret(
      config: string,
      retired: string,
      hash: string,
      keyId: string,
    ): Result<string[] | null, Context>;
    siftTakeClaim(
      externalIds: string,
      externalId: string,
      holder: string,
      workspaceId: string,
    ): Result<number, Context>;
  }
}

export const workspaceFromHash = (hash: Record<string, string>): Workspace =>
  Workspace.parse({
    ...hash,
    allowance: Number(hash["allowance"]),
    classify: hash["classify"] === "1",
    rateLimit: Number(hash["rateLimit"]),
    burst: Number(hash["burst"]),
    createdAt: Number(hash["createdAt"]),
    logPrivacy: hash["logPrivacy"] || undefined,
    logRetentionDays: optionalNumber(hash["logRetentionDays"] || undefined),
    logMaxEntries: optionalNumber(hash["logMaxEntries"] || undefined),
    network: hash["network"] === undefined ? undefined : hash["network"] === "1",
    labels: optionalJson(hash["labels"]),
    updatedAt: optionalNumber(hash["updatedAt"]),
  });

export const configFromHash = (hash: Record<string, string>): Configuration =>
  Configuration.parse({
    ...hash,
    createdAt: Number(hash["createdAt"]),
    challengeTtlMs: optionalNumber(hash["challengeTtlMs"]),
    difficulty: optionalNumber(hash["difficulty"]),
    adaptive: hash["adaptive"] === undefined ? undefined : hash["adaptive"] === "1",
    hostnames: optionalJson(hash["hostnames"]),
    updatedAt: optionalNumber(hash["updatedAt"]),
  });

/** Fields as Redis hash values: booleans as 1/0, lists and maps (labels, hostnames) as JSON. */
export const toHash = (record: object): Record<string, string> => {
  const hash: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    hash[name] =
      typeof value === "boolean"
        ? value
          ? "1"
          : "0"
        : typeof value === "object" && value !== null
          ? JSON.stringify(value)
          : String(value);
  }
  return hash;
};

const optionalJson = (value: string | undefined): unknown => (value ? JSON.parse(value) : undefined);

export const definedOnly = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;

const optionalNumber = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value);
