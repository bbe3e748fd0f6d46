import { z } from "zod";
import type { AccountStore } from "@sift/console/accounts";
import type { ReportStore } from "@sift/feedback";
import type { OperationDeps } from "@sift/operations";
import type { ModelVersions, ReportExamples, TrainingRequests } from "@sift/learning";
import { Keystore, NoticeStore, RedisUsageMeter, type AuditTrail, type TokenStore } from "@sift/keystore";

/** A mistake of the caller: printed on stderr with exit code 2. */
export class UsageError extends Error {}
/** Something named does not exist: printed on stderr with exit code 1. */
export class NotFound extends Error {}

export interface CliDeps {
  keystore: Keystore;
  /** The changes /v1 and the console make too (operation-commands.ts): the same code, audit and webhooks. */
  operations: OperationDeps;
  /** Management tokens (`sift token …`). */
  tokens?: TokenStore;
  /** The audit trail every change the CLI makes is recorded in, as `{type: "cli", id}`. */
  audit?: { trail: AuditTrail; actorId: string };
  usage: RedisUsageMeter;
  notices: NoticeStore;
  /** Reports, lists and sharing (POST /feedback's learned state). */
  reports: ReportStore;
  /** The console's accounts and the password reader (`sift console …`). */
  console?: ConsoleCliDeps;
  /** The deployment's model versions and kept reviews (`sift model …`, model-commands.ts). */
  models?: ModelCliDeps;
  /** Commands that live in other packages (e.g. `challenge solve`) plug in here. */
  extra?: Record<string, Command>;
}

/** What the model commands need (issue 53, model-commands.ts): the kept reviews and the versions. */
export interface ModelCliDeps {
  examples: ReportExamples;
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

export const onOff = z.enum(["on", "off"]).transform((v) => v === "on");
/** A flag's comma-separated items, each trimmed, empty ones dropped (`a, b,,c` → a, b, c). */
export const commaList = z.string().transform((v) =>
  v
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0),
);

/** Exactly the commands other tools are written against (issue 3), plus usage and notices. */
export const COMMANDS: Record<string, Command> = {
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

export const definedOnly = <T extends Record<string, unknown>>(
  record: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
