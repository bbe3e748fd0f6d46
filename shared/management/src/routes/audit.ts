import { AuditQuery } from "@sift/contracts";
import { NOT_FOUND, fail, iso, ok, parseWith } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

export const AUDIT_ROUTES: ApiRoute[] = [
  {
    ...operation("GET /v1/audit"),
    handle: async (call, deps) => {
      const query = parseWith(AuditQuery, call.query);
      if (!query.ok) return query.answer;
      const { token } = call.caller;
      if (token.scope === "workspace" && query.value.workspace && query.value.workspace !== token.workspaceId)
        return NOT_FOUND;
      const workspaceId = token.scope === "workspace" ? token.workspaceId : query.value.workspace;
      if (query.value.cursor && !/^\d{1,20}-\d{1,20}$/.test(query.value.cursor))
        return fail("invalid", "cursor: a cursor from nextCursor");
      const found = await deps.audit.page({
        workspaceId,
        since: query.value.since ? Date.parse(query.value.since) : undefined,
        cursor: query.value.cursor,
        limit: query.value.limit ?? 100,
      });
      return ok({
        data: found.data.map((e) => ({
          id: e.id,
          at: iso(e.at),
          actor: e.actor,
          action: e.action,
          target: e.target,
          workspaceId: e.workspaceId ?? null,
          before: e.before ?? null,
          after: e.after ?? null,
        })),
        nextCursor: found.next,
      });
    },
  },
];
