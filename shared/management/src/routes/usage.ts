import { ListQuery, UsageView } from "@sift/contracts";
import { USAGE_WINDOW_DAYS, type Workspace } from "@sift/keystore";
import { DAY } from "@sift/runtime";
import { NOT_FOUND, iso, ok, parseWith, type ManagementDeps } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";
import { visibleWorkspace } from "./workspaces.ts";

/**
 * A workspace's allowance state and its last 30 days: counted classify calls (the usage meter),
 * spam and clean verdicts and failed verifications (the verdict log's counts), successful
 * verifications (verify's VerifiedCounter), 429 answers.
 */
const usageOf = async (deps: ManagementDeps, w: Workspace): Promise<UsageView> => {
  const now = deps.clock.now();
  const to = (Math.floor(now / DAY) + 1) * DAY;
  const [status, counted, refused, verified, verdicts] = await Promise.all([
    deps.usage.status(w),
    deps.usage.daily(w.id, USAGE_WINDOW_DAYS),
    deps.refusals.daily(w.id, USAGE_WINDOW_DAYS),
    deps.verified.daily(w.id, USAGE_WINDOW_DAYS),
    deps.verdicts.counts(w.id, { bucket: "day", from: to - USAGE_WINDOW_DAYS * DAY, to }),
  ]);
  return {
    workspaceId: w.id,
    state: status.state,
    used30d: status.used30d,
    allowance: status.allowance,
    graceEndsAt: iso(status.graceEndsAt),
    retryAfter: status.retryAfterMs > 0 ? Math.ceil(status.retryAfterMs / 1000) : null,
    daily: refused.map((r, i) => {
      const v = verdicts[i];
      return {
        day: new Date(r.day * DAY).toISOString().slice(0, 10),
        counted: counted[i]?.count ?? 0,
        spam: v?.spam ?? 0,
        clean: v?.clean ?? 0,
        verified: verified[i]?.count ?? 0,
        verifyFailed: v?.verify_failed ?? 0,
        refused: r.rate_limited + r.quota_exceeded,
      };
    }),
  };
};

export const USAGE_ROUTES: ApiRoute[] = [
  {
    ...operation("GET /v1/workspaces/{id}/usage"),
    handle: async (call, deps) => {
      const workspace = await visibleWorkspace(deps, call, call.params["id"]!);
      return workspace ? ok(await usageOf(deps, workspace)) : NOT_FOUND;
    },
  },
  {
    ...operation("GET /v1/usage"),
    handle: async (call, deps) => {
      const query = parseWith(ListQuery, call.query);
      if (!query.ok) return query.answer;
      const only = call.caller.token.scope === "workspace" ? call.caller.token.workspaceId : undefined;
      // A usage row is ~30 days of reads: pages of at most 100 keep a call under a second.
      const limit = Math.min(query.value.limit ?? 50, 100);
      const { ids, next } = only
        ? { ids: query.value.cursor ? [] : [only], next: null }
        : await deps.keystore.pageWorkspaceIds({}, limit, query.value.cursor ?? null);
      const found = await Promise.all(ids.map((id) => deps.keystore.getWorkspace(id)));
      const rows = await Promise.all(
        found.filter((w): w is Workspace => w !== null).map((w) => usageOf(deps, w)),
      );
      return ok({ data: rows, nextCursor: next });
    },
  },
];
