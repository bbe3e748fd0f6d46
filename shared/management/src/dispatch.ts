import { IdempotencyKey, ManagementMessage } from "@sift/contracts";
import { OPERATOR_ONLY, fail, type Answer, type Caller, type ManagementDeps } from "./context.ts";
import type { IdempotencyStore } from "./idempotency.ts";
import { isWrite, matchRoute, type ApiRoute } from "./route.ts";

export interface Operation {
  method: string;
  /** The path with its query, as sent (`/v1/workspaces?limit=10`). */
  path: string;
  body?: unknown;
  idempotencyKey?: string | undefined;
}

/**
 * One operation, from HTTP or from a batch: route, read-only and scope rules, then the handler,
 * under its Idempotency-Key when it is a write that carries one. A handler's throw is a 500
 * answer (logged without the body, which may hold a secret), never a crash.
 */
export const dispatch = async (
  deps: ManagementDeps & { idempotency: IdempotencyStore; routes: readonly ApiRoute[] },
  caller: Caller,
  op: Operation,
): Promise<Answer> => {
  const url = new URL(op.path, "http://management.invalid");
  const matched = matchRoute(deps.routes, op.method, url.pathname);
  if (!matched.route)
    return fail(
      "not_found",
      matched.pathMatched
        ? `${op.method} is not an operation of ${url.pathname}`
        : ManagementMessage.notFound,
    );
  const { route, params } = matched;
  const write = isWrite(route);
  if (write && caller.token.readOnly) return fail("forbidden", ManagementMessage.readOnly);
  if (route.operatorOnly && caller.token.scope !== "operator") return OPERATOR_ONLY;
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name)) return fail("invalid", `${name}: given more than once`);
    query[name] = value;
  }
  const act = async (): Promise<Answer> => {
    try {
      return await route.handle({ caller, params, query, body: op.body }, deps);
    } catch (err) {
      deps.logger.error(
        { err: (err as Error).message, route: `${route.method} ${route.path}` },
        "management call failed",
      );
      // Not a caller's mistake, so none of DESIGN's codes: the spec's 500 shape.
      return { status: 500, body: { ok: false, message: ManagementMessage.internal } };
    }
  };
  if (route.method === "GET" || op.idempotencyKey === undefined) return act();
  if (!IdempotencyKey.safeParse(op.idempotencyKey).success)
    return fail("invalid", ManagementMessage.idempotencyInvalid);
  const request = `${route.method} ${url.pathname}${url.search}\n${JSON.stringify(op.body ?? null)}`;
  return deps.idempotency.run(caller, op.idempotencyKey, request, act);
};
