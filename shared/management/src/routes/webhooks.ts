import { ListQuery, WebhookCreate } from "@sift/contracts";
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
import { webhookTargetProblem, type WebhookRecord } from "@sift/webhooks";

const view = (w: WebhookRecord) => ({
  id: w.id,
  url: w.url,
  events: w.events,
  workspaceId: w.workspaceId ?? null,
  createdAt: iso(w.createdAt)!,
});

/** A webhook the caller may see: an operator every one, a workspace token its workspace's. */
const visibleHook = async (deps: ManagementDeps, call: Call): Promise<WebhookRecord | null> => {
  const hook = await deps.webhooks.get(call.params["id"]!);
  if (!hook) return null;
  if (call.caller.token.scope === "operator") return hook;
  return hook.workspaceId && sees(call.caller, hook.workspaceId) ? hook : null;
};

export const WEBHOOK_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/webhooks"),
    handle: async (call, deps) => {
      const input = parseWith(WebhookCreate, call.body);
      if (!input.ok) return input.answer;
      const { token } = call.caller;
      // A workspace token subscribes for its workspace only; a deployment-wide hook is an operator's.
      const workspaceId = token.scope === "workspace" ? token.workspaceId : input.value.workspaceId;
      if (input.value.workspaceId !== undefined && !sees(call.caller, input.value.workspaceId))
        return NOT_FOUND;
      if (workspaceId !== undefined && !(await deps.keystore.getWorkspace(workspaceId))) return NOT_FOUND;
      const problem = await webhookTargetProblem(new URL(input.value.url), deps.allowPrivateWebhooks);
      if (problem) return fail("invalid", problem);
      const { record, secret } = await deps.webhooks.create({
        url: input.value.url,
        events: [...new Set(input.value.events)],
        ...(workspaceId ? { workspaceId } : {}),
      });
      await audited(deps, call.caller, {
        action: "webhook.create",
        target: record.id,
        workspaceId,
        after: view(record),
      });
      return ok({ ...view(record), secret }, 201);
    },
  },
  {
    ...operation("GET /v1/webhooks"),
    handle: async (call, deps) => {
      const query = parseWith(ListQuery, call.query);
      if (!query.ok) return query.answer;
      const found = await deps.webhooks.page(query.value.limit ?? 100, query.value.cursor ?? null);
      const data = found.data
        .filter(
          (w) =>
            call.caller.token.scope === "operator" || (w.workspaceId && sees(call.caller, w.workspaceId)),
        )
        .map(view);
      return ok({ data, nextCursor: found.next });
    },
  },
  {
    ...operation("GET /v1/webhooks/{id}"),
    handle: async (call, deps) => {
      const hook = await visibleHook(deps, call);
      return hook ? ok(view(hook)) : NOT_FOUND;
    },
  },
  {
    ...operation("DELETE /v1/webhooks/{id}"),
    handle: async (call, deps) => {
      const hook = await visibleHook(deps, call);
      if (!hook) return NOT_FOUND;
      await deps.webhooks.delete(hook.id);
      await audited(deps, call.caller, {
        action: "webhook.delete",
        target: hook.id,
        workspaceId: hook.workspaceId,
        before: view(hook),
      });
      return ok(view(hook));
    },
  },
  {
    ...operation("GET /v1/webhooks/{id}/deliveries"),
    handle: async (call, deps) => {
      const query = parseWith(ListQuery, call.query);
      if (!query.ok) return query.answer;
      const hook = await visibleHook(deps, call);
      if (!hook) return NOT_FOUND;
      return ok({
        data: await deps.webhooks.deliveries(hook.id, query.value.limit ?? 100),
        nextCursor: null,
      });
    },
  },
];
