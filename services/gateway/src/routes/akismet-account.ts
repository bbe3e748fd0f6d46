import type { Request, RequestHandler, Response } from "express";
import type { ResolvedKey } from "@sift/contracts";
import type { UsageMeter, UsageStatus } from "@sift/keystore";
import type { AkismetParams } from "../domain/akismet.ts";
import type { Admission } from "./akismet-params.ts";

/**
 * The Akismet calls the WordPress plugin's settings page makes (issue 46): `GET /1.1/test` (its
 * connectivity check, which wants the word `connected`), `get-subscription` (the account card and
 * whether a key is saved at all) and `get-stats` (the statistics card), plus 1.2's usage-limit.
 * Each answers in the shape the plugin reads (Akismet 5.0.2's class.akismet-admin.php and
 * views/config.php), with Sift's own figures: the workspace's plan and 30-day usage.
 */
export interface AccountDeps {
  usage: Pick<UsageMeter, "status">;
}

/** Resolves the key a call asks about (`key` first), without spending from its rate limit. */
export type AdmitAbout = (req: Request, params: AkismetParams) => Promise<Admission>;

type Key = ResolvedKey | { status: "test" };

/** What the plugin shows when a figure is missing: a PHP warning. So every field it reads is set. */
export interface Subscription {
  account_id: string;
  account_name: string;
  account_type: string;
  status: "active";
  next_billing_date: null;
  /** The plugin's usage banner: `yellow` in the free plan's grace, `red` once paused (spec 3.1). */
  limit_reached: false | "yellow" | "red";
  usage: { limit: number | "none"; usage: number };
}

export const accountRoutes = (
  deps: AccountDeps,
  admitAbout: AdmitAbout,
  paramsOf: (req: Request) => AkismetParams,
) => {
  /** The key's workspace usage, or null when the answer (invalid, 403) was already given. */
  const resolve = async (
    req: Request,
    res: Response,
  ): Promise<{ key: Key; status: UsageStatus | null } | null> => {
    const admission = await admitAbout(req, paramsOf(req));
    if (!admission.ok) {
      await admission.answer(res);
      return null;
    }
    const key = admission.key as Key;
    if (key.status === "test") return { key, status: null };
    const status = await deps.usage.status({ id: key.workspaceId, plan: key.plan, allowance: key.allowance });
    return { key, status };
  };

  const test: RequestHandler = (_req, res) => void res.type("text/plain").send("connected");

  const getSubscription: RequestHandler = async (req, res) => {
    const found = await resolve(req, res);
    if (!found) return;
    const { key, status } = found;
    const paid = key.status === "valid" && key.plan === "paid";
    const body: Subscription = {
      account_id: key.status === "valid" ? key.workspaceId : "test",
      account_name: key.status === "test" ? "Sift (test key)" : paid ? "Sift, paid plan" : "Sift, free plan",
      account_type: key.status === "test" ? "sift-test" : paid ? "sift-paid" : "sift-free",
      status: "active",
      next_billing_date: null,
      limit_reached: status?.state === "paused" ? "red" : status?.state === "grace" ? "yellow" : false,
      usage: { limit: paid || !status ? "none" : status.allowance, usage: status?.used30d ?? 0 },
    };
    res.json(body);
  };

  /**
   * The plugin's statistics card reads `spam`, `missed_spam`, `false_positives`, `accuracy` and
   * `time_saved`. The gateway keeps no per-site verdict totals (the console's verdict pages
   * have them, under the workspace's log privacy), so `spam` is 0 and the plugin shows its
   * "statistics will be displayed here" line rather than figures Sift did not count; `checked`
   * is Sift's own: the classify calls counted in the last 30 days.
   */
  const getStats: RequestHandler = async (req, res) => {
    const found = await resolve(req, res);
    if (!found) return;
    res.json({
      spam: 0,
      ham: 0,
      missed_spam: 0,
      false_positives: 0,
      accuracy: 0,
      time_saved: 0,
      checked: found.status?.used30d ?? 0,
    });
  };

  /**
   * Akismet 1.2's usage-limit: the workspace's allowance (`none` on a paid plan, which is never
   * cut off), its counted calls of the last 30 days, and `throttled` while paused (spec 3.1).
   */
  const usageLimit: RequestHandler = async (req, res) => {
    const found = await resolve(req, res);
    if (!found) return;
    const { key, status } = found;
    if (key.status === "test" || !status)
      return void res.json({ limit: "none", usage: 0, percentage: "0.00", throttled: false });
    const paid = key.plan === "paid";
    res.json({
      limit: paid ? "none" : status.allowance,
      usage: status.used30d,
      percentage:
        paid || status.allowance === 0 ? "0.00" : ((100 * status.used30d) / status.allowance).toFixed(2),
      throttled: status.state === "paused",
    });
  };

  return { test, getSubscription, getStats, usageLimit };
};
