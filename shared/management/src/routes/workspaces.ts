import { WorkspaceListQuery } from "@sift/contracts";
import type { Workspace } from "@sift/keystore";
import { createWorkspace, deleteWorkspace, readWorkspaceView, updateWorkspace } from "@sift/operations";
import {
  NOT_FOUND,
  answerOf,
  ok,
  operationActor,
  parseWith,
  sees,
  type Call,
  type ManagementDeps,
} from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

/** A page holds up to 100 workspaces unless `limit` says otherwise (1-1,000, as Turnstile's widget list). */
const DEFAULT_LIMIT = 100;

/** The workspace a call names, if the caller may see it; otherwise null (a 404, never a 403: DESIGN). */
export const visibleWorkspace = async (
  deps: ManagementDeps,
  call: Call,
  id: string,
): Promise<Workspace | null> => {
  if (!sees(call.caller, id)) return null;
  return deps.keystore.getWorkspace(id);
};

/** Rows with the settings kept beside each one's learned state (one round trip per row, in flight together). */
const views = (deps: ManagementDeps, found: readonly Workspace[]) =>
  Promise.all(found.map((w) => readWorkspaceView(deps.operations, w)));

export const WORKSPACE_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/workspaces"),
    handle: async (call, deps) =>
      answerOf(await createWorkspace(deps.operations, operationActor(call.caller), call.body), 201),
  },
  {
    ...operation("GET /v1/workspaces"),
    handle: async (call, deps) => {
      const query = parseWith(WorkspaceListQuery, call.query);
      if (!query.ok) return query.answer;
      const { limit = DEFAULT_LIMIT, cursor, q, externalId, plan, label } = query.value;
      const only = call.caller.token.scope === "workspace" ? call.caller.token.workspaceId : undefined;
      // A workspace token's list is its workspace; an external id names at most one.
      if (only !== undefined || externalId !== undefined) {
        const id = only ?? (await deps.keystore.workspaceIdByExternalId(externalId!));
        const found = id && !cursor ? await deps.keystore.getWorkspace(id) : null;
        const data = found && matches(found, query.value) ? await views(deps, [found]) : [];
        return ok({ data, nextCursor: null });
      }
      const colon = label?.indexOf(":") ?? -1;
      const labelPair = label ? ([label.slice(0, colon), label.slice(colon + 1)] as const) : undefined;
      const pageIds = await deps.keystore.pageWorkspaceIds(
        { ...(q ? { q } : {}), ...(plan ? { plan } : {}), ...(labelPair ? { label: labelPair } : {}) },
        limit,
        cursor ?? null,
      );
      const found = await Promise.all(pageIds.ids.map((id) => deps.keystore.getWorkspace(id)));
      const data = await views(
        deps,
        found.filter((w): w is Workspace => w !== null && matches(w, query.value)),
      );
      return ok({ data, nextCursor: pageIds.next });
    },
  },
  {
    ...operation("GET /v1/workspaces/{id}"),
    handle: async (call, deps) => {
      const workspace = await visibleWorkspace(deps, call, call.params["id"]!);
      return workspace ? ok(await readWorkspaceView(deps.operations, workspace)) : NOT_FOUND;
    },
  },
  {
    ...operation("PATCH /v1/workspaces/{id}"),
    handle: async (call, deps) =>
      answerOf(
        await updateWorkspace(deps.operations, operationActor(call.caller), call.params["id"]!, call.body),
      ),
  },
  {
    ...operation("DELETE /v1/workspaces/{id}"),
    handle: async (call, deps) =>
      answerOf(await deleteWorkspace(deps.operations, operationActor(call.caller), call.params["id"]!)),
  },
];

/** The filters the set read did not apply (a page from the label index still checks the plan). */
const matches = (
  w: Workspace,
  f: { q?: string | undefined; plan?: string | undefined; label?: string | undefined },
): boolean => {
  if (f.plan && w.plan !== f.plan) return false;
  if (f.q && !w.name.toLowerCase().startsWith(f.q.toLowerCase())) return false;
  if (f.label) {
    const colon = f.label.indexOf(":");
    if ((w.labels ?? {})[f.label.slice(0, colon)] !== f.label.slice(colon + 1)) return false;
  }
  return true;
};
