import { z } from "zod";
import { ListEntryInput, MAX_LIST_IMPORT, type ListEntryView } from "@sift/contracts";
import { listMember, normalizeListValue, type ListEntry } from "@sift/feedback";
import {
  NOT_FOUND,
  audit,
  done,
  failure,
  reachableWorkspace,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";

/** One entry as a door hands it over; its value is checked and folded by the list store. */
export const ListChange = ListEntryInput;

/** Who the lists table names as having added an entry: a console user's e-mail, `CLI`, a token's id. */
const addedBy = (actor: Actor): string => (actor.audit.type === "cli" ? "CLI" : actor.audit.id);

/**
 * `list.add` / `list.remove`: one block or allow entry of a workspace's lists, as POST
 * /feedback's classify reads them. A value that is no valid domain, e-mail or phrase changes
 * nothing. The entry as stored (folded) is the audit entry's `after` (an add) or `before`.
 */
export const changeList = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  change: "add" | "remove",
  input: unknown,
): Promise<Outcome<ListEntry>> => {
  const parsed = validate(ListChange, input);
  if (!parsed.ok) return parsed;
  if (!(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const entry = await deps.reports.updateList(workspaceId, change, parsed.value, addedBy(actor));
  if (!entry) return failure("invalid", `value: not a valid ${parsed.value.type}`);
  await audit(deps, actor, {
    action: `list.${change}`,
    target: `${entry.kind} ${entry.type} ${entry.value}`,
    workspaceId,
    ...(change === "add" ? { after: entry } : { before: entry }),
  });
  return done(entry);
};

/**
 * `list.import`: many entries at once, all or nothing (one value that is not valid adds none;
 * the console's import names every bad line before it calls); the count given and the count new
 * are audited, not the entries.
 */
export const importList = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: unknown,
): Promise<Outcome<{ entries: number; added: number }>> => {
  const parsed = validate(z.array(ListChange).max(MAX_LIST_IMPORT), input);
  if (!parsed.ok) return parsed;
  const entries: ListEntry[] = [];
  for (const [i, e] of parsed.value.entries()) {
    const value = normalizeListValue(e.type, e.value);
    if (value === null) return failure("invalid", `${i}.value: not a valid ${e.type}`);
    entries.push({ ...e, value });
  }
  if (!(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const added = await deps.reports.addListEntries(workspaceId, entries, addedBy(actor));
  const result = { entries: entries.length, added };
  await audit(deps, actor, { action: "list.import", target: workspaceId, workspaceId, after: result });
  return done(result);
};

/**
 * A page of a workspace's lists (kind, type, value order; `kind` and `type` narrow it) with who
 * added each entry and when: /v1's read, as the console's table reads the same store.
 */
export const listPage = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  page: { limit: number; cursor: string | null; kind?: string | undefined; type?: string | undefined },
): Promise<Outcome<{ data: ListEntryView[]; nextCursor: string | null }>> => {
  if (page.kind === undefined && page.type !== undefined)
    return failure("invalid", "type: give kind with it (block or allow)");
  if (!(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const prefix = [page.kind, page.type]
    .filter((p) => p !== undefined)
    .map((p) => `${p}|`)
    .join("");
  const cursor = page.cursor === null ? null : Buffer.from(page.cursor, "base64url").toString("utf8");
  const found = await deps.reports.listPage(workspaceId, { limit: page.limit, cursor, prefix });
  const added = await deps.reports.listAdded(workspaceId, found.entries);
  return done({
    data: found.entries.map((e) => {
      const by = added.get(listMember(e));
      return { ...e, addedBy: by?.by ?? null, addedAt: by ? new Date(by.at).toISOString() : null };
    }),
    nextCursor: found.next === null ? null : Buffer.from(found.next, "utf8").toString("base64url"),
  });
};
