import {
  configurationView,
  createConfiguration,
  deleteConfiguration,
  rotateSecret,
  updateConfiguration,
} from "@sift/operations";
import type { Configuration } from "@sift/keystore";
import { NOT_FOUND, answerOf, ok, operationActor, sees, type Call, type ManagementDeps } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";
import { visibleWorkspace } from "./workspaces.ts";

/** The configuration a call names, if the caller may see its workspace. */
const visibleConfig = async (deps: ManagementDeps, call: Call): Promise<Configuration | null> => {
  const config = await deps.keystore.getConfig(call.params["id"]!);
  return config && sees(call.caller, config.workspaceId) ? config : null;
};

export const CONFIGURATION_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/workspaces/{id}/configurations"),
    handle: async (call, deps) =>
      answerOf(
        await createConfiguration(
          deps.operations,
          operationActor(call.caller),
          call.params["id"]!,
          call.body,
        ),
        201,
      ),
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
    handle: async (call, deps) =>
      answerOf(
        await updateConfiguration(
          deps.operations,
          operationActor(call.caller),
          call.params["id"]!,
          call.body,
        ),
      ),
  },
  {
    ...operation("DELETE /v1/configurations/{id}"),
    handle: async (call, deps) =>
      answerOf(await deleteConfiguration(deps.operations, operationActor(call.caller), call.params["id"]!)),
  },
  {
    ...operation("POST /v1/configurations/{id}/rotate-secret"),
    handle: async (call, deps) =>
      answerOf(
        await rotateSecret(deps.operations, operationActor(call.caller), call.params["id"]!, call.body),
      ),
  },
];
