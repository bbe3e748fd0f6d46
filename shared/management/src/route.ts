import {
  MANAGEMENT_OPERATIONS,
  type ManagementOperation,
  type ManagementOperationName,
} from "@sift/contracts";
import type { Answer, Call, ManagementDeps } from "./context.ts";

/**
 * One operation of the management API: its contract (MANAGEMENT_OPERATIONS: method, path, who
 * may call it, what /openapi.json says of it) and its handler (`parse → authorise → load → act
 * → answer`). HTTP and /v1/batch reach the same handler through `dispatch`.
 */
export interface ApiRoute extends ManagementOperation {
  /** Whether a read-only token is refused it: every method but GET, unless set (a batch checks each operation). */
  write?: boolean;
  handle(call: Call, deps: ManagementDeps): Promise<Answer>;
}

export type ApiMethod = ManagementOperation["method"];

/** An operation's contract by name, for a route to spread. */
export const operation = (name: ManagementOperationName): ManagementOperation => MANAGEMENT_OPERATIONS[name];

/** Writes: everything but a read (DESIGN: an Idempotency-Key on any POST, PATCH or DELETE). */
export const isWrite = (route: Pick<ApiRoute, "method" | "write">): boolean =>
  route.write ?? route.method !== "GET";

/** The route that `method path` names, with its parameters; `pathMatched` when only the method is wrong. */
export const matchRoute = (
  routes: readonly ApiRoute[],
  method: string,
  pathname: string,
): { route: ApiRoute; params: Record<string, string> } | { route: null; pathMatched: boolean } => {
  let pathMatched = false;
  const parts = pathname.split("/");
  for (const route of routes) {
    const pattern = route.path.split("/");
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const same = pattern.every((p, i) => {
      const part = parts[i] ?? "";
      if (p.startsWith("{")) {
        // Ids are short base64url; anything else names nothing (and never reaches Redis).
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(part)) return false;
        params[p.slice(1, -1)] = part;
        return true;
      }
      return p === part;
    });
    if (!same) continue;
    if (route.method === method) return { route, params };
    pathMatched = true;
  }
  return { route: null, pathMatched };
};
