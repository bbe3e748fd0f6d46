import { ListQuery } from "@sift/contracts";
import { createToken, revokeToken, tokenView } from "@sift/operations";
import { NOT_FOUND, answerOf, ok, operationActor, parseWith } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

export const TOKEN_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/tokens"),
    handle: async (call, deps) =>
      answerOf(await createToken(deps.operations, operationActor(call.caller), call.body), 201),
  },
  {
    ...operation("GET /v1/tokens"),
    handle: async (call, deps) => {
      const query = parseWith(ListQuery, call.query);
      if (!query.ok) return query.answer;
      const found = await deps.tokens.page(query.value.limit ?? 100, query.value.cursor ?? null);
      return ok({ data: found.data.map(tokenView), nextCursor: found.next });
    },
  },
  {
    ...operation("GET /v1/tokens/{id}"),
    handle: async (call, deps) => {
      const token = await deps.tokens.get(call.params["id"]!);
      return token ? ok(tokenView(token)) : NOT_FOUND;
    },
  },
  {
    ...operation("DELETE /v1/tokens/{id}"),
    handle: async (call, deps) =>
      answerOf(await revokeToken(deps.operations, operationActor(call.caller), call.params["id"]!)),
  },
];
