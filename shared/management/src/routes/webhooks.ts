import { ListQuery } from "@sift/contracts";
import { createWebhook, deleteWebhook, reachableWebhook, webhookView } from "@sift/operations";
import { NOT_FOUND, answerOf, ok, operationActor, parseWith } from "../context.ts";
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
      // A workspace token's list is its site's handful, read from the site's own set: never
      // pages of the deployment's webhooks filtered down to nothing.
      if (call.caller.token.scope !== "operator") {
        const own = call.caller.token.workspaceId;
        const hooks = own && !query.value.cursor ? await deps.webhooks.of(own) : [];
        return ok({ data: hooks.map(webhookView), nextCursor: null });
      }
      const found = await deps.webhooks.page(query.value.limit ?? 100, query.value.cursor ?? null);
      return ok({ data: found.data.map(webhookView), nextCursor: found.next });
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
