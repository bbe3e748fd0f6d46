import {
  ConfigurationCreate,
  ConfigurationPatch,
  RotateSecret,
  type ConfigurationView,
} from "@sift/contracts";
import type { ConfigChanges, Configuration } from "@sift/keystore";
import {
  NOT_FOUND,
  audit,
  done,
  failure,
  iso,
  reaches,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";
import { configurationView } from "./views.ts";

/** The API's challenge settings as the key store keeps them (seconds → ms). */
const changesOf = (input: ConfigurationPatch): ConfigChanges =>
  Object.fromEntries(
    Object.entries({
      name: input.name,
      hostnames: input.hostnames,
      difficulty: input.difficulty,
      challengeTtlMs: input.challengeTtlSeconds === undefined ? undefined : input.challengeTtlSeconds * 1000,
      adaptive: input.adaptive,
    }).filter(([, v]) => v !== undefined),
  );

const CHALLENGE_ONLY = ["hostnames", "difficulty", "challengeTtlSeconds", "adaptive"] as const;

const challengeOnly = (kind: string, input: ConfigurationPatch) => {
  const field = CHALLENGE_ONLY.find((f) => input[f] !== undefined);
  return kind !== "challenge" && field
    ? failure("invalid", `${field}: only a challenge configuration has it`)
    : null;
};

/** The configuration named, if the actor reaches its workspace (else the same 404 as none). */
const reachable = async (
  deps: OperationDeps,
  actor: Actor,
  configId: string,
): Promise<Configuration | null> => {
  const config = await deps.keystore.getConfig(configId);
  return config && reaches(actor, config.workspaceId) ? config : null;
};

/** `configuration.create`: its secret (and a challenge's site key) in this answer only. */
export const createConfiguration = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: unknown,
): Promise<Outcome<ConfigurationView & { secretKey: string }>> => {
  const parsed = validate(ConfigurationCreate, input);
  if (!parsed.ok) return parsed;
  const refused = challengeOnly(parsed.value.kind, parsed.value);
  if (refused) return refused;
  if (!reaches(actor, workspaceId)) return NOT_FOUND;
  const created = await deps.keystore.createConfig(workspaceId, parsed.value.kind, changesOf(parsed.value));
  if (!created) return NOT_FOUND;
  const view = configurationView(created.config);
  await audit(deps, actor, { action: "configuration.create", target: view.id, workspaceId, after: view });
  return done({ ...view, secretKey: created.secretKey });
};

/** `configuration.update`: name, and a challenge configuration's hostnames, difficulty, life, adaptive mode. */
export const updateConfiguration = async (
  deps: OperationDeps,
  actor: Actor,
  configId: string,
  input: unknown,
): Promise<Outcome<ConfigurationView>> => {
  const parsed = validate(ConfigurationPatch, input);
  if (!parsed.ok) return parsed;
  const current = await reachable(deps, actor, configId);
  if (!current) return NOT_FOUND;
  const refused = challengeOnly(current.kind, parsed.value);
  if (refused) return refused;
  const updated = await deps.keystore.updateConfig(configId, changesOf(parsed.value));
  if (!updated) return NOT_FOUND;
  const after = configurationView(updated);
  await audit(deps, actor, {
    action: "configuration.update",
    target: configId,
    workspaceId: current.workspaceId,
    before: configurationView(current),
    after,
  });
  return done(after);
};

/** `configuration.delete`: its secret stops at once. */
export const deleteConfiguration = async (
  deps: OperationDeps,
  actor: Actor,
  configId: string,
): Promise<Outcome<ConfigurationView>> => {
  const current = await reachable(deps, actor, configId);
  if (!current) return NOT_FOUND;
  const gone = await deps.keystore.deleteConfig(configId);
  if (!gone) return NOT_FOUND;
  const before = configurationView(gone);
  await audit(deps, actor, {
    action: "configuration.delete",
    target: configId,
    workspaceId: gone.workspaceId,
    before,
  });
  return done(before);
};

/**
 * `configuration.rotate`: a new secret; the old one refused at once (graceSeconds 0, the spec's
 * rotate) or kept until `previousValidUntil`; `secret.rotated` to the workspace's webhooks.
 */
export const rotateSecret = async (
  deps: OperationDeps,
  actor: Actor,
  configId: string,
  input: unknown,
): Promise<Outcome<{ secretKey: string; previousValidUntil: string }>> => {
  const parsed = validate(RotateSecret, input ?? {});
  if (!parsed.ok) return parsed;
  const config = await reachable(deps, actor, configId);
  if (!config) return NOT_FOUND;
  const graceSeconds = parsed.value.graceSeconds ?? 0;
  const graceMs = graceSeconds * 1000;
  const secretKey = await deps.keystore.rotate(configId, { graceMs });
  if (!secretKey) return NOT_FOUND;
  const previousValidUntil = iso(deps.clock.now() + graceMs)!;
  await audit(deps, actor, {
    action: "configuration.rotate",
    target: configId,
    workspaceId: config.workspaceId,
    after: { graceSeconds, previousValidUntil },
  });
  await deps.webhooks.emit({
    type: "secret.rotated",
    workspaceId: config.workspaceId,
    data: { workspaceId: config.workspaceId, configurationId: configId, previousValidUntil },
  });
  return done({ secretKey, previousValidUntil });
};
