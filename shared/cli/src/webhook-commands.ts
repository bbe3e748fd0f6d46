import { z } from "zod";
import { WEBHOOK_EVENTS } from "@sift/contracts";
import { createWebhook, deleteWebhook, webhookView } from "@sift/operations";
import { NotFound, UsageError, commaList, definedOnly, parse, required, type Command } from "./commands.ts";
import { actorOf, unwrap } from "./operation-commands.ts";

const EventList = commaList.pipe(z.array(z.enum(WEBHOOK_EVENTS)).min(1));

/**
 * `sift webhook …`: the twins of POST, GET and DELETE /v1/webhooks, through the same operations.
 * A webhook's secret is derived from the deployment's SIFT_INTERNAL_SECRET, so `webhook create`
 * needs it in the CLI's environment (list and delete do not).
 */
export const WEBHOOK_COMMANDS: Record<string, Command> = {
  "webhook create": {
    flags: ["url", "events", "workspace"],
    run: async (flags, deps) => {
      if (!deps.operations.webhooks.canSign)
        throw new UsageError(
          "set SIFT_INTERNAL_SECRET (the deployment's): a webhook's signing secret is derived from it",
        );
      const input = {
        url: required(flags, "url"),
        events: parse(EventList, required(flags, "events"), "events")!,
        ...definedOnly({ workspaceId: flags["workspace"] }),
      };
      const created = unwrap(
        await createWebhook(deps.operations, actorOf(deps), input),
        `no workspace ${flags["workspace"]}`,
      );
      return { webhookId: created.id, secret: created.secret };
    },
  },
  "webhook list": {
    flags: ["workspace", "limit", "cursor"],
    run: async (flags, deps) => {
      const limit = parse(z.coerce.number().int().min(1).max(1000), flags["limit"], "limit") ?? 100;
      const cursor = parse(z.string().regex(/^[A-Za-z0-9_-]{1,2000}$/), flags["cursor"], "cursor") ?? null;
      const page = await deps.operations.webhooks.page(limit, cursor);
      const workspaceId = flags["workspace"];
      return {
        data: page.data
          .filter((w) => workspaceId === undefined || w.workspaceId === workspaceId)
          .map(webhookView),
        nextCursor: page.next,
      };
    },
  },
  // GET /v1/webhooks/{id}/deliveries's twin: every attempt, newest first, its status or error.
  "webhook deliveries": {
    flags: ["webhook", "limit"],
    run: async (flags, deps) => {
      const webhookId = required(flags, "webhook");
      const limit = parse(z.coerce.number().int().min(1).max(1000), flags["limit"], "limit") ?? 100;
      if (!(await deps.operations.webhooks.get(webhookId))) throw new NotFound(`no webhook ${webhookId}`);
      return { data: await deps.operations.webhooks.deliveries(webhookId, limit), nextCursor: null };
    },
  },
  "webhook delete": {
    flags: ["webhook"],
    run: async (flags, deps) => {
      const webhookId = required(flags, "webhook");
      unwrap(await deleteWebhook(deps.operations, actorOf(deps), webhookId), `no webhook ${webhookId}`);
      return { webhookId, deleted: true };
    },
  },
};
