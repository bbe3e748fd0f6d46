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

export const OWN_SECOND_FACTOR_FIRST =
  "Turn on your own second factor first (Your sessions, then Second factor): everyone who opens the site needs one, you included.";

const said = (required: boolean) => (required ? "required" : "not required");

/**
 * `workspace.second-factor`: whether everyone who opens the workspace's console pages needs a
 * second factor (issue 41). The one who asks it of everyone has one first, or the next page
 * would shut them out too (a conflict). A change that changes nothing records nothing. Which
 * members may ask is the console's (an owner).
 */
export const requireSecondFactor = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  required: boolean,
): Promise<Outcome<{ workspaceId: string; required: boolean }>> => {
  if (!deps.secondFactor || !(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  if (required && !(actor.userId !== undefined && (await deps.secondFactor.enabled(actor.userId))))
    return failure("conflict", OWN_SECOND_FACTOR_FIRST);
  if (required !== (await deps.secondFactor.requiredIn(workspaceId))) {
    await deps.secondFactor.setRequired(workspaceId, required);
    await audit(deps, actor, {
      action: "workspace.second-factor",
      target: workspaceId,
      workspaceId,
      before: { secondFactor: said(!required) },
      after: { secondFactor: said(required) },
    });
  }
  return done({ workspaceId, required });
};
