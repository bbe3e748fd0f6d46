import type { Router } from "express";
import type { RedisUsageMeter, RefusalCounter } from "@sift/keystore";
import { DAY, queryFields, type Clock } from "@sift/runtime";
import type { BucketCount, VerdictLog } from "@sift/verdicts";
import { PERIODS, periodOf, windows } from "../domain/overview.ts";
import { overviewPage, type OverviewView } from "../views/overview.ts";
import { isNetworkLabel } from "@sift/network";
import { sendPage } from "./context.ts";
import { enter, type WorkspaceDeps } from "./workspace.ts";

export interface OverviewDeps extends WorkspaceDeps {
  verdicts: VerdictLog;
  usage: RedisUsageMeter;
  refusals: RefusalCounter;
  clock: Clock;
}

const sum = (rows: readonly BucketCount[]) =>
  rows.reduce(
    (t, r) => ({
      spam: t.spam + r.spam,
      clean: t.clean + r.clean,
      verify_failed: t.verify_failed + r.verify_failed,
    }),
    { spam: 0, clean: 0, verify_failed: 0 },
  );

/**
 * Overview: the workspace at a glance. Spam, clean and failed verifications over the chosen
 * period from the verdict log's hour counts, 429 rate-limited answers from the refusal counter
 * (kept per UTC day), each against the period before; the allowance meter; how many verdicts
 * wait for review; the most frequent reasons.
 */
export const overviewRoutes = (router: Router, deps: OverviewDeps): void => {
  router.get("/console/w/:workspace/overview", async (req, res) => {
    const place = await enter(deps, req, res, "overview", "read");
    if (!place) return;
    const name = periodOf(queryFields(req)["period"]);
    const period = PERIODS[name];
    const w = windows(period, deps.clock.now());
    const ws = place.workspace.id;
    // Rate-limited answers are counted per UTC day: two periods' days (the 24 h view: today and yesterday).
    const refusalDays = period.bucket === "day" ? period.buckets * 2 : 2;
    const [buckets, previous, status, refused, waiting, reasons] = await Promise.all([
      deps.verdicts.counts(ws, { bucket: period.bucket, from: w.from, to: w.to }),
      deps.verdicts.counts(ws, { bucket: period.bucket, from: w.previous.from, to: w.previous.to }),
      deps.usage.status(place.workspace),
      deps.refusals.daily(ws, refusalDays),
      deps.verdicts.waitingForReview(ws),
      // Every reason of the newest 1,000 verdicts: the ten most frequent are shown, and those of
      // the network are counted (messages other sites received too: docs/network.md).
      deps.verdicts.topReasons(ws, { limit: 1_000 }),
    ]);
    const half = refused.length / 2;
    const limitedNow = refused.slice(half).reduce((n, d) => n + d.rate_limited, 0);
    const limitedBefore = refused.slice(0, half).reduce((n, d) => n + d.rate_limited, 0);
    const byDay = new Map(refused.map((d) => [d.day * DAY, d.rate_limited]));
    const view: OverviewView = {
      period: name,
      buckets: buckets.map((b) => ({
        ...b,
        rate_limited: period.bucket === "day" ? (byDay.get(b.start) ?? 0) : null,
      })),
      totals: { ...sum(buckets), rate_limited: limitedNow },
      previous: { ...sum(previous), rate_limited: limitedBefore },
      status,
      waiting,
      reasons: reasons.slice(0, 10),
      network: reasons.filter((r) => isNetworkLabel(r.reason)).reduce((n, r) => n + r.count, 0),
    };
    sendPage(res, 200, overviewPage(place, view));
  });
};
