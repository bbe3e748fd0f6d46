import { z } from "zod";
import {
  CHALLENGE_TTL_MS,
  ExternalId,
  Hostnames,
  Labels,
  languageList,
  PrivacyMode,
  STRICTNESS_MODES,
  WorkspaceLog,
} from "@sift/contracts";
import { Difficulty, KeyKind, Plan } from "@sift/keystore";
import {
  createConfiguration,
  createWorkspace,
  deleteConfiguration,
  deleteWorkspace,
  reindexWorkspaces,
  forgetLog,
  rotateSecret,
  updateConfiguration,
  updateWorkspace,
  type Actor,
  type Outcome,
} from "@sift/operations";
import {
  NotFound,
  UsageError,
  commaList,
  definedOnly,
  onOff,
  parse,
  required,
  type CliDeps,
  type Command,
  type Flags,
} from "./commands.ts";

/**
 * The commands that change a workspace or a configuration: each reads its flags, runs the one
 * operation /v1 and the console run (@sift/operations: the same checks, audit entry and
 * webhooks) and prints its answer; the operation records the audit entry (the CLI adds none of
 * its own: a command that is no operation changes nothing).
 */

/** The CLI acts as the deployment's operator (it holds the Redis), under the account that ran it. */
export const actorOf = (deps: CliDeps): Actor => ({
  audit: { type: "cli", id: deps.audit?.actorId ?? "cli" },
  operator: true,
});

/**
 * An operation's outcome as the CLI answers: a caller's mistake exits 2, a missing thing 1 (in
 * the CLI's words: `missing`), a conflict 2 with `conflict`'s words when given.
 */
export const unwrap = <T>(outcome: Outcome<T>, missing: string, conflict?: string): T => {
  if (outcome.ok) return outcome.value;
  if (outcome.code === "not_found") throw new NotFound(missing);
  if (outcome.code === "invalid") throw new UsageError(outcome.message);
  if (outcome.code === "conflict")
    throw new UsageError(
      conflict ?? `${outcome.message}${outcome.id === undefined ? "" : ` (${outcome.id})`}`,
    );
  throw new Error(outcome.message);
};

const count = z.coerce.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const positive = z.coerce.number().positive().max(1e9);
const HostnameList = commaList.pipe(Hostnames);
const LanguageList = z.string().transform(languageList);
/** `reseller=r12,region=eu` (a value holding a comma goes through PATCH /v1/workspaces/{id}); "" clears them. */
const LabelList = commaList
  .transform((pairs) =>
    Object.fromEntries(
      pairs.map((pair) => {
        const at = pair.indexOf("=");
        return at < 0 ? [pair, ""] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      }),
    ),
  )
  .pipe(Labels);
/** What `workspace create` and `workspace set` both take: a name, an external id, labels. */
const identity = (flags: Flags) =>
  definedOnly({
    externalId: parse(ExternalId, flags["external-id"], "external-id"),
    labels: parse(LabelList, flags["labels"], "labels"),
  });

/** `--config C [--grace-seconds N]`: DESIGN's twin of POST /v1/configurations/{id}/rotate-secret. */
const rotate: Command = {
  flags: ["config", "grace-seconds"],
  run: async (flags, deps) => {
    const configId = required(flags, "config");
    const graceSeconds = parse(z.coerce.number().int(), flags["grace-seconds"], "grace-seconds");
    return unwrap(
      await rotateSecret(deps.operations, actorOf(deps), configId, definedOnly({ graceSeconds })),
      `no configuration ${configId}`,
    );
  },
};

export const OPERATION_COMMANDS: Record<string, Command> = {
  "workspace create": {
    flags: ["name", "plan", "allowance", "external-id", "labels"],
    run: async (flags, deps) => {
      const input = {
        name: required(flags, "name"),
        plan: parse(Plan, required(flags, "plan"), "plan")!,
        ...definedOnly({ allowance: parse(count, flags["allowance"], "allowance") }),
        ...identity(flags),
      };
      const view = unwrap(await createWorkspace(deps.operations, actorOf(deps), input), "");
      return { workspaceId: view.id };
    },
  },
  "workspace set": {
    flags: [
      "workspace",
      "name",
      "external-id",
      "labels",
      "classify",
      "plan",
      "allowance",
      "rate-limit",
      "burst",
      "share-reports",
      "network",
      "strictness",
      "languages",
      "log-privacy",
      "log-retention-days",
      "log-max-entries",
    ],
    run: async (flags, deps) => {
      const workspaceId = required(flags, "workspace");
      const patch = definedOnly({
        name: flags["name"],
        ...identity(flags),
        classify: parse(onOff, flags["classify"], "classify"),
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
        shareReports: parse(onOff, flags["share-reports"], "share-reports"),
        strictness: parse(z.enum(STRICTNESS_MODES), flags["strictness"], "strictness"),
        // Comma-separated ISO 639-1 codes; an empty value clears them (learned again).
        languages: parse(LanguageList, flags["languages"], "languages"),
      });
      if (Object.keys(patch).length === 0) throw new UsageError("nothing to set");
      unwrap(
        await updateWorkspace(deps.operations, actorOf(deps), workspaceId, patch),
        `no workspace ${workspaceId}`,
      );
      return { workspaceId, ...patch };
    },
  },
  // DELETE /v1/workspaces/{id}'s twin: its keys stop at once.
  "workspace delete": {
    flags: ["workspace"],
    run: async (flags, deps) => {
      const workspaceId = required(flags, "workspace");
      unwrap(
        await deleteWorkspace(deps.operations, actorOf(deps), workspaceId),
        `no workspace ${workspaceId}`,
      );
      return { workspaceId, deleted: true };
    },
  },
  // Once after upgrading to 1.5: workspaces made before the directory are not in its lists.
  "workspace reindex": {
    flags: [],
    run: async (_flags, deps) => unwrap(await reindexWorkspaces(deps.operations, actorOf(deps)), ""),
  },
  "config create": {
    flags: ["workspace", "kind", "name"],
    run: async (flags, deps) => {
      const workspaceId = required(flags, "workspace");
      const kind = parse(KeyKind, required(flags, "kind"), "kind")!;
      const created = unwrap(
        await createConfiguration(deps.operations, actorOf(deps), workspaceId, {
          kind,
          ...definedOnly({ name: flags["name"] }),
        }),
        `no workspace ${workspaceId}`,
      );
      return created.siteKey
        ? { configId: created.id, siteKey: created.siteKey, secretKey: created.secretKey }
        : { configId: created.id, secretKey: created.secretKey };
    },
  },
  "config set": {
    flags: ["config", "name", "difficulty", "challenge-ttl", "adaptive", "hostnames"],
    run: async (flags, deps) => {
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
        name: flags["name"],
        difficulty: parse(z.coerce.number().pipe(Difficulty), flags["difficulty"], "difficulty"),
        challengeTtlMs: ttlSeconds === undefined ? undefined : ttlSeconds * 1000,
        adaptive: parse(onOff, flags["adaptive"], "adaptive"),
        // Comma-separated; an empty value clears the list (any host).
        hostnames: parse(HostnameList, flags["hostnames"], "hostnames"),
      });
      if (Object.keys(changes).length === 0) throw new UsageError("nothing to set");
      const { challengeTtlMs: _ms, ...same } = changes;
      unwrap(
        await updateConfiguration(deps.operations, actorOf(deps), configId, {
          ...same,
          ...definedOnly({ challengeTtlSeconds: ttlSeconds }),
        }),
        `no configuration ${configId}`,
      );
      return { configId, ...changes };
    },
  },
  // DELETE /v1/configurations/{id}'s twin: its secrets stop at once.
  "config delete": {
    flags: ["config"],
    run: async (flags, deps) => {
      const configId = required(flags, "config");
      unwrap(
        await deleteConfiguration(deps.operations, actorOf(deps), configId),
        `no configuration ${configId}`,
      );
      return { configId, deleted: true };
    },
  },
  "workspace forget-log": {
    flags: ["workspace"],
    run: async (flags, deps) => {
      const workspaceId = required(flags, "workspace");
      if (!deps.operations.verdicts) throw new UsageError("this CLI has no verdict log");
      return unwrap(
        await forgetLog(deps.operations, actorOf(deps), workspaceId),
        `no workspace ${workspaceId}`,
      );
    },
  },
  "config rotate": rotate,
  // The name before DESIGN's `rotate` (issue 58): the same operation, the same answer.
  "key reroll": rotate,
};
