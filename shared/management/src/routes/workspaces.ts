import { ManagementMessage, WorkspaceCreate, WorkspaceListQuery, WorkspacePatch } from "@sift/contracts";
import type { Workspace } from "@sift/keystore";
import { logFailure } from "@sift/runtime";
import {
  NOT_FOUND,
  OPERATOR_ONLY,
  audited,
  fail,
  ok,
  parseWith,
  sees,
  type Call,
  type ManagementDeps,
} from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";
import { workspaceView } from "../views.ts";
import { emitUsageEvents } from "../webhooks/usage-events.ts";

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

const taken = (existingId: string) => fail("conflict", ManagementMessage.externalIdTaken, { id: existingId });

export const WORKSPACE_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/workspaces"),
    handle: async (call, deps) => {
      const input = parseWith(WorkspaceCreate, call.body);
      if (!input.ok) return input.answer;
      const created = await deps.keystore.createWorkspaceUnique(input.value);
      if (!created.ok) return taken(created.existingId);
      const view = workspaceView(created.workspace);
      await audited(deps, call.caller, {
        action: "workspace.create",
        target: view.id,
        workspaceId: view.id,
        after: view,
      });
      return ok(view, 201);
    },
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
        const data = found && matches(found, query.value) ? [workspaceView(found)] : [];
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
      const data = found
        .filter((w): w is Workspace => w !== null && matches(w, query.value))
        .map(workspaceView);
      return ok({ data, nextCursor: pageIds.next });
    },
  },
  {
    ...operation("GET /v1/workspaces/{id}"),
    handle: async (call, deps) => {
      const workspace = await visibleWorkspace(deps, call, call.params["id"]!);
      return workspace ? ok(workspaceView(workspace)) : NOT_FOUND;
    },
  },
  {
    ...operation("PATCH /v1/workspaces/{id}"),
    handle: async (call, deps) => {
      const input = parseWith(WorkspacePatch, call.body);
      if (!input.ok) return input.answer;
      const before = await visibleWorkspace(deps, call, call.params["id"]!);
      if (!before) return NOT_FOUND;
      // A site's own token may rename and relabel it; its plan and limits are the operator's.
      const limits = Object.keys(input.value).some((k) => k !== "name" && k !== "labels");
      if (call.caller.token.scope !== "operator" && limits) return OPERATOR_ONLY;
      const updated = await deps.keystore.updateWorkspaceUnique(before.id, input.value);
      if (!updated) return NOT_FOUND;
      if (!updated.ok) return taken(updated.existingId);
      const after = workspaceView(updated.workspace);
      await audited(deps, call.caller, {
        action: "workspace.update",
        target: before.id,
        workspaceId: before.id,
        before: workspaceView(before),
        after,
      });
      // A new plan or allowance can resume a paused site (or start a grace) now: the usage script
      // records it and raises its webhook, once, as a classify call would have.
      if (updated.workspace.plan !== before.plan || updated.workspace.allowance !== before.allowance) {
        await deps.usage
          .observe(updated.workspace)
          .then(({ status, events }) =>
            events ? emitUsageEvents(deps.webhooks, before.id, status, events) : undefined,
          )
          .catch((err: unknown) =>
            logFailure(deps.logger, err, { workspaceId: before.id }, "usage webhook events not queued"),
          );
      }
      return ok(after);
    },
  },
  {
    ...operation("DELETE /v1/workspaces/{id}"),
    handle: async (call, deps) => {
      const gone = await deps.keystore.deleteWorkspace(call.params["id"]!);
      if (!gone) return NOT_FOUND;
      const before = workspaceView(gone);
      await audited(deps, call.caller, {
        action: "workspace.delete",
        target: gone.id,
        workspaceId: gone.id,
        before,
      });
      return ok(before);
    },
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
