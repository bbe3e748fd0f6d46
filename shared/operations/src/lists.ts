import { z } from "zod";
import { LIST_KINDS, LIST_TYPES, normalizeListValue, type ListEntry } from "@sift/feedback";
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
export const ListChange = z.object({
  kind: z.enum(LIST_KINDS),
  type: z.enum(LIST_TYPES),
  // A phrase's limit is 200 characters once folded; a longer input is never a valid value.
  value: z.string().max(2_000),
});

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
  const entry = await deps.feedback.updateList(workspaceId, change, parsed.value, addedBy(actor));
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
  const parsed = validate(z.array(ListChange).max(100_000), input);
  if (!parsed.ok) return parsed;
  const entries: ListEntry[] = [];
  for (const [i, e] of parsed.value.entries()) {
    const value = normalizeListValue(e.type, e.value);
    if (value === null) return failure("invalid", `${i}.value: not a valid ${e.type}`);
    entries.push({ ...e, value });
  }
  if (!(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const added = await deps.feedback.addListEntries(workspaceId, entries, addedBy(actor));
  const result = { entries: entries.length, added };
  await audit(deps, actor, { action: "list.import", target: workspaceId, workspaceId, after: result });
  return done(result);
};
