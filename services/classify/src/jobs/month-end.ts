import type { PlanConversationNotice } from "@sift/contracts";
import { monthName, type Keystore, type NoticeStore, type RedisUsageMeter } from "@sift/keystore";
import type { Clock } from "@sift/runtime";

/** Spec 3.1 and 8: three months in a row over the allowance start a plan conversation. */
const MONTHS_IN_A_ROW = 3;
/** How far back a streak is traced to find where it began (two years covers any real case). */
const STREAK_LOOKBACK = 24;

export interface MonthEndDeps {
  keystore: Keystore;
  usage: RedisUsageMeter;
  notices: NoticeStore;
  clock: Clock;
  /** Hands a newly raised notice to the mail side; must be idempotent by notice id. */
  emit(notice: PlanConversationNotice): Promise<void>;
}

/**
 * Checks every paid workspace at the end of `month`. One notice per streak: its id is the
 * workspace and the streak's first month, so re-runs, overlapping instances and a fourth month
 * over never raise a second one; a month under the allowance ends the streak. Service behaviour
 * does not change: paid plans are never cut off.
 */
export const checkPaidPlans = async (
  deps: MonthEndDeps,
  month: number,
): Promise<PlanConversationNotice[]> => {
  const raised: PlanConversationNotice[] = [];
  // A page of ids at a time (no job reads every workspace at once: DESIGN, "many sites"); an id
  // the walk yields twice raises nothing twice, since a notice's id is its streak's.
  for await (const ids of deps.keystore.walkWorkspaceIds()) {
    for (const id of ids) {
      const workspace = await deps.keystore.getWorkspace(id);
      if (!workspace || workspace.plan !== "paid") continue;
      const over = async (m: number) => (await deps.usage.monthTotal(id, m)) > workspace.allowance;

      let start = month + 1;
      while (start > month - STREAK_LOOKBACK && (await over(start - 1))) start--;
      if (month - start + 1 < MONTHS_IN_A_ROW) continue;

      const months = [start, start + 1, start + 2];
      const notice: PlanConversationNotice = {
        id: `${id}:${monthName(start)}`,
        kind: "plan-conversation",
        workspaceId: id,
        months: months.map(monthName),
        totals: await Promise.all(months.map((m) => deps.usage.monthTotal(id, m))),
        allowance: workspace.allowance,
        raisedAt: new Date(deps.clock.now()).toISOString(),
      };
      // Emit first: if we die between the two, the re-run emits again under the same job id
      // (deduplicated) and then records the notice.
      await deps.emit(notice);
      if (await deps.notices.raise(notice)) raised.push(notice);
    }
  }
  return raised;
};
