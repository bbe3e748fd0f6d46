import { WebhookCreate, type WebhookView } from "@sift/contracts";
import { webhookTargetProblem, type WebhookRecord } from "@sift/webhooks";
import {
  NOT_FOUND,
  audit,
  done,
  failure,
  iso,
  reaches,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";

export const webhookView = (w: WebhookRecord): WebhookView => ({
  id: w.id,
  url: w.url,
  events: w.events,
  workspaceId: w.workspaceId ?? null,
  createdAt: iso(w.createdAt)!,
});

/** The webhook named, if the actor may see it: an operator every one, anyone else its workspace's. */
export const reachableWebhook = async (
  deps: OperationDeps,
  actor: Actor,
  webhookId: string,
): Promise<WebhookRecord | null> => {
  const hook = await deps.webhooks.get(webhookId);
  if (!hook) return null;
  if (actor.operator) return hook;
  return hook.workspaceId && reaches(actor, hook.workspaceId) ? hook : null;
};

/**
 * `webhook.create`: a subscription for one workspace's events, or (an operator's) for every
 * workspace's; its signing secret in this answer only. A target on a private address is refused
 * unless the deployment allows them (SIFT_WEBHOOK_ALLOW_PRIVATE).
 */
export const createWebhook = async (
  deps: OperationDeps,
  actor: Actor,
  input: unknown,
): Promise<Outcome<WebhookView & { secret: string }>> => {
  const parsed = validate(WebhookCreate, input);
  if (!parsed.ok) return parsed;
  const asked = parsed.value.workspaceId;
  if (asked !== undefined && !reaches(actor, asked)) return NOT_FOUND;
  // Anyone but an operator subscribes for their own workspace, named or not.
  const workspaceId = actor.operator ? asked : actor.workspaceId;
  if (workspaceId !== undefined && !(await deps.keystore.getWorkspace(workspaceId))) return NOT_FOUND;
  const problem = await webhookTargetProblem(new URL(parsed.value.url), deps.allowPrivateWebhooks);
  if (problem) return failure("invalid", problem);
  const { record, secret } = await deps.webhooks.create({
    url: parsed.value.url,
    events: [...new Set(parsed.value.events)],
    ...(workspaceId ? { workspaceId } : {}),
  });
  const view = webhookView(record);
  await audit(deps, actor, { action: "webhook.create", target: record.id, workspaceId, after: view });
  return done({ ...view, secret });
};

/** `webhook.delete`: no delivery is queued for it from then on. */
export const deleteWebhook = async (
  deps: OperationDeps,
  actor: Actor,
  webhookId: string,
): Promise<Outcome<WebhookView>> => {
  const hook = await reachableWebhook(deps, actor, webhookId);
  if (!hook) return NOT_FOUND;
  await deps.webhooks.delete(hook.id);
  const before = webhookView(hook);
  await audit(deps, actor, {
    action: "webhook.delete",
    target: hook.id,
    workspaceId: hook.workspaceId,
    before,
  });
  return done(before);
};
