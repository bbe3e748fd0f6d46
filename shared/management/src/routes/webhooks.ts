import { ListQuery } from "@sift/contracts";
import { createWebhook, deleteWebhook, reachableWebhook, webhookView } from "@sift/operations";
import { NOT_FOUND, answerOf, ok, operationActor, parseWith, sees } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

export const WEBHOOK_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/webhooks"),
    handle: async (call, deps) =>
      answerOf(await createWebhook(deps.operations, operationActor(call.caller), call.body), 201),
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
        .map(webhookView);
      return ok({ data, nextCursor: found.next });
    },
  },
  {
    ...operation("GET /v1/webhooks/{id}"),
    handle: async (call, deps) => {
      const hook = await reachableWebhook(deps.operations, operationActor(call.caller), call.params["id"]!);
      return hook ? ok(webhookView(hook)) : NOT_FOUND;
    },
  },
  {
    ...operation("DELETE /v1/webhooks/{id}"),
    handle: async (call, deps) =>
      answerOf(await deleteWebhook(deps.operations, operationActor(call.caller), call.params["id"]!)),
  },
  {
    ...operation("GET /v1/webhooks/{id}/deliveries"),
    handle: async (call, deps) => {
      const query = parseWith(ListQuery, call.query);
      if (!query.ok) return query.answer;
      const hook = await reachableWebhook(deps.operations, operationActor(call.caller), call.params["id"]!);
      if (!hook) return NOT_FOUND;
      return ok({
        data: await deps.webhooks.deliveries(hook.id, query.value.limit ?? 100),
        nextCursor: null,
      });
    },
  },
];
