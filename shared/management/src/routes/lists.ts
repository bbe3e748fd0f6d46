import { ListImportRequest, ListPageQuery } from "@sift/contracts";
import { changeList, forgetFeedback, forgetLog, importList, listPage } from "@sift/operations";
import { answerOf, operationActor, parseWith, type Call, type ManagementDeps } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

/** A page holds up to 100 entries unless `limit` says otherwise (1-1,000). */
const DEFAULT_LIMIT = 100;

const change = (which: "add" | "remove") => async (call: Call, deps: ManagementDeps) =>
  answerOf(
    await changeList(deps.operations, operationActor(call.caller), call.params["id"]!, which, call.body),
  );

/**
 * A site's lists, its verdict log and its reports (docs/hosts.md): each change is the operation
 * the console and the CLI run (`list.add`, `list.remove`, `list.import`, `workspace.forget-log`,
 * `feedback.forget`); a workspace token reaches its own site's, as the console's owners do.
 */
export const LIST_ROUTES: ApiRoute[] = [
  {
    ...operation("GET /v1/workspaces/{id}/lists"),
    handle: async (call, deps) => {
      const query = parseWith(ListPageQuery, call.query);
      if (!query.ok) return query.answer;
      const { limit = DEFAULT_LIMIT, cursor, kind, type } = query.value;
      return answerOf(
        await listPage(deps.operations, operationActor(call.caller), call.params["id"]!, {
          limit,
          cursor: cursor ?? null,
          kind,
          type,
        }),
      );
    },
  },
  { ...operation("POST /v1/workspaces/{id}/lists"), handle: change("add") },
  { ...operation("POST /v1/workspaces/{id}/lists/remove"), handle: change("remove") },
  {
    ...operation("POST /v1/workspaces/{id}/lists/import"),
    handle: async (call, deps) => {
      const body = parseWith(ListImportRequest, call.body);
      if (!body.ok) return body.answer;
      return answerOf(
        await importList(
          deps.operations,
          operationActor(call.caller),
          call.params["id"]!,
          body.value.entries,
        ),
      );
    },
  },
  {
    ...operation("DELETE /v1/workspaces/{id}/verdicts"),
    handle: async (call, deps) =>
      answerOf(await forgetLog(deps.operations, operationActor(call.caller), call.params["id"]!)),
  },
  {
    ...operation("DELETE /v1/workspaces/{id}/reports"),
    handle: async (call, deps) =>
      answerOf(await forgetFeedback(deps.operations, operationActor(call.caller), call.params["id"]!)),
  },
];
