import { z } from "zod";

/**
 * The BullMQ job catalog. `month-end` runs on the first of each month (UTC) and checks the paid
 * workspaces; `plan-conversation` is a notice for whatever sends mail.
 */
export const USAGE_QUEUE = "sift-usage";
export const NOTICE_QUEUE = "sift-notices";

export const MonthEndJob = z.object({
  /** The month to check (year * 12 + month index); default: the month that just ended. */
  month: z.number().int().optional(),
});
export type MonthEndJob = z.infer<typeof MonthEndJob>;

export const PlanConversationNotice = z.object({
  id: z.string(),
  kind: z.literal("plan-conversation"),
  workspaceId: z.string(),
  /** The three consecutive months over the allowance that raised it, as YYYY-MM. */
  months: z.array(z.string()).length(3),
  totals: z.array(z.number().int()),
  allowance: z.number().int(),
  raisedAt: z.string(),
});
export type PlanConversationNotice = z.infer<typeof PlanConversationNotice>;
