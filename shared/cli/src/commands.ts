import { z } from "zod";
import type { AccountStore } from "@sift/console/accounts";
import type { FeedbackStore } from "@sift/feedback";
import type { ModelVersions, ReviewExamples, TrainingRequests } from "@sift/learning";
import { CHALLENGE_TTL_MS, Hostnames, PrivacyMode, STRICTNESS_MODES, WorkspaceLog } from "@sift/contracts";
import {
  Difficulty,
  KeyKind,
  Keystore,
  NoticeStore,
  Plan,
  RedisUsageMeter,
  type AuditTrail,
  type TokenStore,
  type WorkspaceChanges,
} from "@sift/keystore";

/** A mistake of the caller: printed on stderr with exit code 2. */
export class UsageError extends Error {}
/** Something named does not exist: printed on stderr with exit code 1. */
export class NotFound extends Error {}

export interface CliDeps {
  keystore: Keystore;
  /** Management tokens (`sift token …`). */
  tokens?: TokenStore;
  /** The audit trail every change the CLI makes is recorded in, as `{type: "cli", id}`. */
  audit?: { trail: AuditTrail; actorId: string };
  usage: RedisUsageMeter;
  notices: NoticeStore;
  /** Reports, lists and sharing (POST /feedback's learned state). */
  feedback: FeedbackStore;
  /** The console's accounts and the password reader (`sift console …`). */
  console?: ConsoleCliDeps;
  /** The verdict log (`sift workspace forget-log`). */
  verdicts?: { forget(workspaceId: string): Promise<void> };
  /** The deployment's kept reviews (issue 53): forgotten when a workspace stops sharing. */
  examples?: { forget(workspaceId: string): Promise<number> };
  /** The deployment's model versions and kept reviews (`sift model …`, model-commands.ts). */
  models?: ModelCliDeps;
  /** Commands that live in other packages (e.g. `challenge solve`) plug in here. */
  extra?: Record<string, Command>;
}

/** What the model commands need (issue 53, model-commands.ts): the kept reviews and the versions. */
export interface ModelCliDeps {
  examples: ReviewExamples;
  versions: ModelVersions;
  /** Training asked for through POST /v1/model/candidates (`sift model train --requested`). */
  requests?: TrainingRequests;
  /** The shipped model's file (SIFT_MODEL_PATH, as the workers load it; default the committed one). */
  modelPath?: string | undefined;
  now(): number;
}

/** What the console commands need beyond the key store: its accounts and a way to read a password. */
export interface ConsoleCliDeps {
  accounts: AccountStore;
  /** The password from standard input (a prompt without echo on a terminal): never an argument. */
  readPassword(): Promise<string>;
}

export type Flags = Record<string, string | undefined>;
export interface Command {
  /** Flags that take a value (`--name value`). */
  flags: string[];
  /** Flags that take none (`--block`); present ones read as "true". */
  booleans?: string[];
  /** The name one positional argument is read as, when the command takes one. */
  positional?: string;
  run(flags: Flags, deps: CliDeps): Promise<unknown>;
}

export const required = (flags: Flags, name: string): string => {
  const value = flags[name];
  if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
  return value;
};

export const parse = <T>(schema: z.ZodType<T>, value: string | undefined, flag: string): T | undefined => {
  if (value === undefined) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`--${flag}: ${JSON.stringify(value)} is not valid`);
  return result.data;
};

const count = z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const HostnameList = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h.length > 0),
  )
  .pipe(Hostnames);
const positive = z.coerce.number().positive().max(1e9);
export const onOff = z.enum(["on", "off"]).transform((v) => v === "on");

/** Exactly the commands other tools are written against (issue 3), plus usage and notices. */
export const COMMANDS: Record<string, Command> = {
  "workspace create": {
    flags: ["name", "plan", "allowance"],
    run: async (flags, { keystore }) => {
      const workspace = await keystore.createWorkspace({
        name: required(flags, "name"),
        plan: parse(Plan, required(flags, "plan"), "plan")!,
        ...definedOnly({ allowance: parse(count, flags["allowance"], "allowance") }),
      });
      return { workspaceId: workspace.id };
    },
  },
  "workspace reindex": {
    flags: [],
    // Once after upgrading to 1.5: workspaces made before the directory are not in its lists.
    run: async (_flags, { keystore }) => ({ reindexed: await keystore.reindexWorkspaces() }),
  },
  "workspace set": {
    flags: [
      "workspace",
      "classify",
      "plan",
      "allowance",
      "rate-limit",
      "burst",
      "share-reports",
      "network",
      "strictness",
      "log-privacy",
      "log-retention-days",
      "log-max-entries",
    ],
    run: async (flags, deps) => {
      const { keystore, feedback } = deps;
      const workspaceId = required(flags, "workspace");
      const shareReports = parse(onOff, flags["share-reports"], "share-reports");
      const strictness = parse(z.enum(STRICTNESS_MODES), flags["strictness"], "strictness");
      const changes: WorkspaceChanges = definedOnly({
        classify: parse(onOff, flags["classify"], "classify"),
        // Kept in the workspace and copied into its key records, so the gateway's one read
        // carries it to classify (docs/network.md).
        network: parse(onOff, flags["network"], "network"),
        plan: parse(Plan, flags["plan"], "plan"),
        allowance: parse(count, flags["allowance"], "allowance"),
        rateLimit: parse(positive, flags["rate-limit"], "rate-limit"),
        burst: parse(z.coerce.number().int().positive().max(1e6), flags["burst"], "burst"),
        logPrivacy: parse(PrivacyMode, flags["log-privacy"], "log-privacy"),
        logRetentionDays: parse(
          z.coerce.number().pipe(WorkspaceLog.shape.retentionDays),
          flags["log-retention-days"],
          "log-retention-days",
        ),
        logMaxEntries: parse(
          z.coerce.number().pipe(WorkspaceLog.shape.maxEntries),
          flags["log-max-entries"],
          "log-max-entries",
        ),
      });
      if (Object.keys(changes).length === 0 && shareReports === undefined && strictness === undefined)
        throw new UsageError("nothing to set");
      const workspace =
        Object.keys(changes).length > 0
          ? await keystore.updateWorkspace(workspaceId, changes)
          : await keystore.getWorkspace(workspaceId);
      if (!workspace) throw new NotFound(`no workspace ${workspaceId}`);
      if (shareReports !== undefined) await feedback.setSharing(workspaceId, shareReports);
      // A workspace that stops sharing leaves the next model (issue 53).
      if (shareReports === false) await deps.examples?.forget(workspaceId);
      // Kept with the learned state the workers already load, not in the key record (store.ts).
      if (strictness !== undefined) await feedback.setStrictness(workspaceId, strictness);
      return { workspaceId: workspace.id, ...changes, ...definedOnly({ shareReports, strictness }) };
    },
  },
  "workspace forget-log": {
    flags: ["workspace"],
    run: async (flags, { keystore, verdicts }) => {
      const workspaceId = required(flags, "workspace");
      if (!verdicts) throw new UsageError("this CLI has no verdict log");
      if (!(await keystore.getWorkspace(workspaceId))) throw new NotFound(`no workspace ${workspaceId}`);
      await verdicts.forget(workspaceId);
      return { workspaceId, forgotten: true };
    },
  },
  "config create": {
    flags: ["workspace", "kind"],
    run: async (flags, { keystore }) => {
      const workspaceId = required(flags, "workspace");
      const created = await keystore.createConfig(
        workspaceId,
        parse(KeyKind, required(flags, "kind"), "kind")!,
      );
      if (!created) throw new NotFound(`no workspace ${workspaceId}`);
      const { config, secretKey } = created;
      return config.siteKey
        ? { configId: config.id, siteKey: config.siteKey, secretKey }
        : { configId: config.id, secretKey };
    },
  },
  "config set": {
    flags: ["config", "difficulty", "challenge-ttl", "adaptive", "hostnames"],
    run: async (flags, { keystore }) => {
      const configId = required(flags, "config");
      // The configuration schema's bounds (the keystore's), the life given in seconds here.
      const ttlSeconds = parse(
        z.coerce
          .number()
          .int()
          .min(CHALLENGE_TTL_MS.min / 1000)
          .max(CHALLENGE_TTL_MS.max / 1000),
        flags["challenge-ttl"],
        "challenge-ttl",
      );
      const changes = definedOnly({
        difficulty: parse(z.coerce.number().pipe(Difficulty), flags["difficulty"], "difficulty"),
        challengeTtlMs: ttlSeconds === undefined ? undefined : ttlSeconds * 1000,
        adaptive: parse(onOff, flags["adaptive"], "adaptive"),
        // Comma-separated; an empty value clears the list (any host).
        hostnames: parse(HostnameList, flags["hostnames"], "hostnames"),
      });
      if (Object.keys(changes).length === 0) throw new UsageError("nothing to set");
      const current = await keystore.getConfig(configId);
      if (current && changes.hostnames !== undefined && current.kind !== "challenge")
        throw new UsageError("--hostnames: only a challenge configuration has hostnames");
      const config = await keystore.updateConfig(configId, changes);
      if (!config) throw new NotFound(`no configuration ${configId}`);
      return { configId: config.id, ...changes };
    },
  },
  "key reroll": {
    flags: ["config"],
    run: async (flags, { keystore }) => {
      const configId = required(flags, "config");
      const secretKey = await keystore.reroll(configId);
      if (!secretKey) throw new NotFound(`no configuration ${configId}`);
      return { secretKey };
    },
  },
  "notices list": {
    flags: [],
    run: async (_flags, { notices }) => notices.list(),
  },
  "usage show": {
    flags: ["workspace"],
    run: async (flags, { keystore, usage }) => {
      const workspaceId = required(flags, "workspace");
      const workspace = await keystore.getWorkspace(workspaceId);
      if (!workspace) throw new NotFound(`no workspace ${workspaceId}`);
      const status = await usage.status(workspace);
      return {
        state: status.state,
        used30d: status.used30d,
        allowance: status.allowance,
        graceEndsAt: status.graceEndsAt === null ? null : new Date(status.graceEndsAt).toISOString(),
        retryAfter: Math.ceil(status.retryAfterMs / 1000),
      };
    },
  },
};

const definedOnly = <T extends Record<string, unknown>>(
  record: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
