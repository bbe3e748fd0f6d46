import { ListQuery, TokenCreate } from "@sift/contracts";
import { NOT_FOUND, audited, ok, parseWith } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";
import { tokenView } from "../views.ts";

export const TOKEN_ROUTES: ApiRoute[] = [
  {
    ...operation("POST /v1/tokens"),
    handle: async (call, deps) => {
      const input = parseWith(TokenCreate, call.body);
      if (!input.ok) return input.answer;
      const { workspaceId, expiresInSeconds, ...rest } = input.value;
      if (workspaceId !== undefined && !(await deps.keystore.getWorkspace(workspaceId))) return NOT_FOUND;
      const { record, token } = await deps.tokens.create({
        ...rest,
        ...(workspaceId ? { workspaceId } : {}),
        ...(expiresInSeconds ? { expiresAt: deps.clock.now() + expiresInSeconds * 1000 } : {}),
      });
      const view = tokenView(record);
      await audited(deps, call.caller, {
        action: "token.create",
        target: record.tokenId,
        workspaceId,
        after: view,
      });
      return ok({ ...view, token }, 201);
    },
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
    handle: async (call, deps) => {
      const revoked = await deps.tokens.revoke(call.params["id"]!);
      if (!revoked) return NOT_FOUND;
      const view = tokenView({ ...revoked, revokedAt: deps.clock.now() });
      await audited(deps, call.caller, {
        action: "token.revoke",
        target: revoked.tokenId,
        workspaceId: revoked.workspaceId,
        before: tokenView(revoked),
        after: view,
      });
      return ok(view);
    },
  },
];
