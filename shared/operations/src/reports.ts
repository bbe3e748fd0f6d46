import {
  NOT_FOUND,
  audit,
  done,
  failure,
  reachableWorkspace,
  type Actor,
  type OperationDeps,
  type Outcome,
  type ReportLabel,
} from "./context.ts";

export const NOTHING_TO_LEARN =
  "Only a classify verdict whose log kept its text or its fingerprint can be reported.";

/**
 * `report.create` by a person (the console's review queue): one verdict of the workspace's log
 * reported exactly as POST /feedback reports a submission (the same job on the same queue for
 * the same learner), then the review recorded in the verdict's history. The job is made from the
 * text the log kept; where the privacy mode kept none it carries the fingerprint taken from it.
 * Another workspace's verdict reads as unknown. Which members may report is the door's (an editor).
 */
export const reportVerdict = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: { verdictId: string; label: ReportLabel; requestId: string },
): Promise<Outcome<{ verdictId: string; label: ReportLabel }>> => {
  const { verdictId, label } = input;
  if (label !== "spam" && label !== "clean") return failure("invalid", "label: spam or clean");
  if (!deps.verdicts || !deps.reporter || !(await reachableWorkspace(deps, actor, workspaceId)))
    return NOT_FOUND;
  const verdict = await deps.verdicts.get(workspaceId, verdictId);
  if (!verdict) return NOT_FOUND;
  const fields = "fields" in verdict.content ? verdict.content.fields : [];
  if (verdict.operation !== "classify" || (fields.length === 0 && !verdict.fingerprint))
    return failure("invalid", NOTHING_TO_LEARN);
  const now = deps.clock.now();
  await deps.reporter.report({
    workspaceId,
    label,
    fields,
    reportedAt: now,
    requestId: input.requestId,
    fingerprint: verdict.content.mode === "full" ? undefined : verdict.fingerprint,
  });
  await deps.verdicts.review(workspaceId, verdictId, { state: label, by: actor.audit.id, at: now });
  // A review is a report (as POST /feedback's), made by a person: one action, its label beside.
  await audit(deps, actor, { action: "report.create", target: verdictId, workspaceId, after: { label } });
  return done({ verdictId, label });
};
