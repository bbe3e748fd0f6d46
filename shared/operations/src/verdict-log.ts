import type { Verdict, VerdictFilter } from "@sift/verdicts";
import {
  NOT_FOUND,
  audit,
  done,
  failure,
  reachableWorkspace,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";

export const EXPORT_FORMATS = ["csv", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * `workspace.export-log`: the verdicts of the workspace's log that match `filter`, newest first,
 * page by page into the door's `write` (a download), which answers how many it wrote; the entry
 * records that count and the format. A write that fails records nothing: no export happened.
 */
export const exportLog = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: { format: string; filter: VerdictFilter },
  write: (verdicts: AsyncIterable<Verdict>, format: ExportFormat) => Promise<number>,
): Promise<Outcome<{ workspaceId: string; verdicts: number; format: ExportFormat }>> => {
  const format = EXPORT_FORMATS.find((f) => f === input.format);
  if (!format) return failure("invalid", "format: csv or json");
  if (!deps.verdicts || !(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const rows = await write(deps.verdicts.export(workspaceId, input.filter), format);
  await audit(deps, actor, {
    action: "workspace.export-log",
    target: workspaceId,
    workspaceId,
    after: { verdicts: rows, format },
  });
  return done({ workspaceId, verdicts: rows, format });
};
