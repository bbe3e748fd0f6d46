import { ConfigurationCreate, ConfigurationPatch, RotateSecret } from "@sift/contracts";
import type { Configuration, ConfigChanges } from "@sift/keystore";
import {
  NOT_FOUND,
  audited,
  fail,
  iso,
  ok,
  parseWith,
  sees,
  type Call,
  type ManagementDeps,
} from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";
import { configurationView } from "../views.ts";
import { visibleWorkspace } from "./workspaces.ts";

/** The configuration a call names, if the caller may see its workspace. */
const visibleConfig = async (deps: ManagementDeps, call: Call): Promise<Configuration | null> => {
  const config = await deps.keystore.getConfig(call.params["id"]!);
  return config && sees(call.caller, config.workspaceId) ? config : null;
};

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
    ? fail("invalid", `${field}: only a challenge configuration has it`)
    : null;
};

export const CONFIGURATION_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/workspaces/{id}/configurations"),
    handle: async (call, deps) => {
      const input = parseWith(ConfigurationCreate, call.body);
      if (!input.ok) return input.answer;
      const refused = challengeOnly(input.value.kind, input.value);
      if (refused) return refused;
      const workspace = await visibleWorkspace(deps, call, call.params["id"]!);
      if (!workspace) return NOT_FOUND;
      const created = await deps.keystore.createConfig(
        workspace.id,
        input.value.kind,
        changesOf(input.value),
      );
      if (!created) return NOT_FOUND;
      const view = configurationView(created.config);
      await audited(deps, call.caller, {
        action: "configuration.create",
        target: view.id,
        workspaceId: workspace.id,
        after: view,
      });
      return ok({ ...view, secretKey: created.secretKey }, 201);
    },
  },
  {
    ...operation("GET /v1/workspaces/{id}/configurations"),
    handle: async (call, deps) => {
      const workspace = await visibleWorkspace(deps, call, call.params["id"]!);
      if (!workspace) return NOT_FOUND;
      const ids = await deps.keystore.configIdsOf(workspace.id);
      const found = await Promise.all(ids.map((id) => deps.keystore.getConfig(id)));
      const data = found
        .filter((c): c is Configuration => c !== null)
        .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id))
        .map(configurationView);
      return ok({ data, nextCursor: null });
    },
  },
  {
    ...operation("GET /v1/configurations/{id}"),
    handle: async (call, deps) => {
      const config = await visibleConfig(deps, call);
      return config ? ok(configurationView(config)) : NOT_FOUND;
    },
  },
  {
    ...operation("PATCH /v1/configurations/{id}"),
    handle: async (call, deps) => {
      const input = parseWith(ConfigurationPatch, call.body);
      if (!input.ok) return input.answer;
      const before = await visibleConfig(deps, call);
      if (!before) return NOT_FOUND;
      const refused = challengeOnly(before.kind, input.value);
      if (refused) return refused;
      const updated = await deps.keystore.updateConfig(before.id, changesOf(input.value));
      if (!updated) return NOT_FOUND;
      const after = configurationView(updated);
      await audited(deps, call.caller, {
        action: "configuration.update",
        target: before.id,
        workspaceId: before.workspaceId,
        before: configurationView(before),
        after,
      });
      return ok(after);
    },
  },
  {
    ...operation("DELETE /v1/configurations/{id}"),
    handle: async (call, deps) => {
      const config = await visibleConfig(deps, call);
      if (!config) return NOT_FOUND;
      const gone = await deps.keystore.deleteConfig(config.id);
      if (!gone) return NOT_FOUND;
      const before = configurationView(gone);
      await audited(deps, call.caller, {
        action: "configuration.delete",
        target: gone.id,
        workspaceId: gone.workspaceId,
        before,
      });
      return ok(before);
    },
  },
  {
    ...operation("POST /v1/configurations/{id}/rotate-secret"),
    handle: async (call, deps) => {
      const input = parseWith(RotateSecret, call.body ?? {});
      if (!input.ok) return input.answer;
      const config = await visibleConfig(deps, call);
      if (!config) return NOT_FOUND;
      const graceMs = (input.value.graceSeconds ?? 0) * 1000;
      const secretKey = await deps.keystore.reroll(config.id, { graceMs });
      if (!secretKey) return NOT_FOUND;
      const previousValidUntil = iso(deps.clock.now() + graceMs)!;
      await audited(deps, call.caller, {
        action: "configuration.rotate-secret",
        target: config.id,
        workspaceId: config.workspaceId,
        after: { graceSeconds: input.value.graceSeconds ?? 0, previousValidUntil },
      });
      await deps.webhooks.emit({
        type: "secret.rotated",
        workspaceId: config.workspaceId,
        data: { workspaceId: config.workspaceId, configurationId: config.id, previousValidUntil },
      });
      return ok({ secretKey, previousValidUntil });
    },
  },
];
