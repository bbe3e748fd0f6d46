import { z } from "zod";
import { ListQuery, page } from "./management.ts";
import type { ManagementOperation } from "./management-operation.ts";

/** A site's two lists (DESIGN, "per-site lists") and what an entry matches. */
export const LIST_KINDS = ["block", "allow"] as const;
export const LIST_TYPES = ["domain", "email", "phrase"] as const;

/**
 * One entry as a door hands it over; the list store checks and folds its value (a domain from a
 * link, an e-mail lower-cased, a phrase's spaces). A phrase's limit is 200 characters once
 * folded: a longer input is never a valid value.
 */
export const ListEntryInput = z.strictObject({
  kind: z.enum(LIST_KINDS),
  type: z.enum(LIST_TYPES),
  value: z.string().min(1).max(2_000),
});

/** An entry as stored, with who added it and when (null for entries from before that was kept). */
export const ListEntryView = z.object({
  kind: z.enum(LIST_KINDS),
  type: z.enum(LIST_TYPES),
  value: z.string(),
  addedBy: z.string().nullable(),
  addedAt: z.string().nullable(),
});
export type ListEntryView = z.infer<typeof ListEntryView>;

/** The entry as stored (its value folded). */
export const ListChanged = z.object({
  kind: z.enum(LIST_KINDS),
  type: z.enum(LIST_TYPES),
  value: z.string(),
});

/** The most entries one import takes: a file of lists, not a data load (the console's limit too). */
export const MAX_LIST_IMPORT = 20_000;
export const ListImportRequest = z.strictObject({
  entries: z.array(ListEntryInput).min(1).max(MAX_LIST_IMPORT),
});
export const ListImported = z.object({ entries: z.number(), added: z.number() });

/** A page of a site's lists in kind, type and value order; `kind` and `type` narrow it. */
export const ListPageQuery = ListQuery.extend({
  kind: z.enum(LIST_KINDS).optional(),
  type: z.enum(LIST_TYPES).optional(),
});

export const Forgotten = z.object({ workspaceId: z.string(), forgotten: z.literal(true) });
export const ReportsForgotten = Forgotten.extend({ version: z.number() });

/**
 * A site's lists, its verdict log and its reports over /v1 (docs/hosts.md, "Lists, the verdict
 * log and reports"): the twins of the console's Lists page and "Forget the log", and of `sift
 * list add|remove|import`, `sift workspace forget-log` and `sift feedback forget`. An entry has no
 * id but its value, which may hold any character: it is named in the body, and its removal is a
 * POST (a DELETE's body is dropped by some proxies).
 */
export const LIST_OPERATIONS = {
  "GET /v1/workspaces/{id}/lists": {
    method: "GET",
    path: "/v1/workspaces/{id}/lists",
    summary:
      "A site's block and allow entries a page at a time, by kind, type and value (filters kind, type)",
    query: ListPageQuery,
    answer: page(ListEntryView),
  },
  "POST /v1/workspaces/{id}/lists": {
    method: "POST",
    path: "/v1/workspaces/{id}/lists",
    summary:
      "Add a block or allow entry (its value folded as stored; adding one already there changes nothing)",
    body: ListEntryInput,
    answer: ListChanged,
  },
  "POST /v1/workspaces/{id}/lists/remove": {
    method: "POST",
    path: "/v1/workspaces/{id}/lists/remove",
    summary: "Remove a block or allow entry, named as it was added (folded the same way)",
    body: ListEntryInput,
    answer: ListChanged,
  },
  "POST /v1/workspaces/{id}/lists/import": {
    method: "POST",
    path: "/v1/workspaces/{id}/lists/import",
    summary: `Add up to ${MAX_LIST_IMPORT.toLocaleString("en")} entries at once, all or none (one value that is not valid adds none and is named)`,
    body: ListImportRequest,
    answer: ListImported,
  },
  "DELETE /v1/workspaces/{id}/verdicts": {
    method: "DELETE",
    path: "/v1/workspaces/{id}/verdicts",
    summary: "Forget a site's verdict log: every verdict it keeps, gone at once (its settings stay)",
    answer: Forgotten,
  },
  "DELETE /v1/workspaces/{id}/reports": {
    method: "DELETE",
    path: "/v1/workspaces/{id}/reports",
    summary:
      "Forget a site's reports: what they taught its own layer, and its reviews kept for the deployment's model",
    answer: ReportsForgotten,
  },
} as const satisfies Record<string, ManagementOperation>;
