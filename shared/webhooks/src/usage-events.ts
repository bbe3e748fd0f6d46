import type { UsageEvents, UsageStatus } from "@sift/keystore";
import { logFailure, type Logger } from "@sift/runtime";
import type { WebhookStore } from "./store.ts";

/** What `workspace.state` names each state a workspace moves into (DESIGN: grace, paused, resumed). */
const STATE_EVENT = { grace: "grace", paused: "paused", under: "resumed" } as const;

/**
 * Hands the usage meter's events of one call (usage.ts `UsageEvents`, decided once across every
 * replica by the usage script) to the webhooks: `usage.threshold` for each threshold reached,
 * `workspace.state` for a change of state.
 */
export const emitUsageEvents = async (
  webhooks: Pick<WebhookStore, "emit">,
  workspaceId: string,
  status: UsageStatus,
  events: UsageEvents,
): Promise<void> => {
  const usage = {
    workspaceId,
    used30d: status.used30d,
    allowance: status.allowance,
    graceEndsAt: status.graceEndsAt === null ? null : new Date(status.graceEndsAt).toISOString(),
  };
  for (const percent of events.thresholds)
    await webhooks.emit({ type: "usage.threshold", workspaceId, data: { ...usage, threshold: percent } });
  if (events.state)
    await webhooks.emit({
      type: "workspace.state",
      workspaceId,
      data: {
        ...usage,
        state: STATE_EVENT[events.state.to],
        previous: events.state.from,
        retryAfter: status.retryAfterMs > 0 ? Math.ceil(status.retryAfterMs / 1000) : null,
      },
    });
};

/**
 * The same, never awaited by the caller: a hot path (a classify call) starts it and goes on; a
 * failure (Redis, the queue) is logged and the call's answer is unchanged.
 */
export const usageEventsSender =
  (webhooks: Pick<WebhookStore, "emit">, logger: Logger) =>
  (workspaceId: string, status: UsageStatus, events: UsageEvents): void =>
    void emitUsageEvents(webhooks, workspaceId, status, events).catch((err: unknown) =>
      logFailure(logger, err, { workspaceId }, "usage webhook events not queued"),
    );
