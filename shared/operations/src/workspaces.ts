import {
  ManagementMessage,
  WorkspaceCreate,
  WorkspacePatch,
  workspaceLogFrom,
  type WorkspaceView,
} from "@sift/contracts";
import { isId, type Workspace, type WorkspaceChanges } from "@sift/keystore";
import { logFailure } from "@sift/runtime";
import { emitUsageEvents } from "@sift/webhooks";
import {
  NOT_FOUND,
  OPERATOR_ONLY,
  audit,
  done,
  failure,
  reachableWorkspace,
  reaches,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";
import { readWorkspaceView, workspaceView } from "./views.ts";

/**
 * What a site's own people may change themselves (a workspace token, a console owner): its name
 * and labels, the settings of its traffic and what its verdict log keeps (the console's owners
 * set it too). Its plan, allowance, rate, classify switch and externalId are the
 * operator's, whoever asks.
 */
const WORKSPACE_OWN = new Set([
  "name",
  "labels",
  "strictness",
  "shareReports",
  "network",
  "languages",
  "logPrivacy",
  "logRetentionDays",
  "logMaxEntries",
]);

/**
 * What an audit entry keeps of a workspace: its view, and the rate, burst and verdict log
 * settings the view leaves out, so that a change of any of them shows in its before and after.
 */
const audited = (view: WorkspaceView, w: Workspace) => {
  const log = workspaceLogFrom(w);
  return {
    ...view,
    rateLimit: w.rateLimit,
    burst: w.burst,
    logPrivacy: log.privacy,
    logRetentionDays: log.retentionDays,
    logMaxEntries: log.maxEntries,
  };
};

const taken = (existingId: string) => failure("conflict", ManagementMessage.externalIdTaken, existingId);

/** `workspace.create`: an operator's; an externalId another workspace holds is a conflict naming it. */
export const createWorkspace = async (
  deps: OperationDeps,
  actor: Actor,
  input: unknown,
): Promise<Outcome<WorkspaceView>> => {
  const parsed = validate(WorkspaceCreate, input);
  if (!parsed.ok) return parsed;
  if (!actor.operator) return OPERATOR_ONLY;
  const created = await deps.keystore.createWorkspaceUnique(parsed.value);
  if (!created.ok) return taken(created.existingId);
  const view = await readWorkspaceView(deps, created.workspace);
  await audit(deps, actor, {
    action: "workspace.create",
    target: view.id,
    workspaceId: view.id,
    after: audited(view, created.workspace),
  });
  return done(view);
};

/**
 * `workspace.update`: the key record's fields, then the settings kept with the learned state
 * (strictness, sharing, expected languages), one audit entry with the whole view before and
 * after, and the usage webhooks a new plan or allowance causes. Turning sharing off forgets the
 * workspace's kept reviews (issue 53), whichever door asked.
 */
export const updateWorkspace = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: unknown,
): Promise<Outcome<WorkspaceView>> => {
  const parsed = validate(WorkspacePatch, input);
  if (!parsed.ok) return parsed;
  if (!reaches(actor, workspaceId)) return NOT_FOUND;
  const { strictness, shareReports, languages, ...fields } = parsed.value;
  if (!actor.operator && Object.keys(parsed.value).some((k) => !WORKSPACE_OWN.has(k))) return OPERATOR_ONLY;
  const current = await deps.keystore.getWorkspace(workspaceId);
  if (!current) return NOT_FOUND;
  const before = await readWorkspaceView(deps, current);
  // The key record first: an externalId taken changes nothing else.
  const updated = await deps.keystore.updateWorkspaceUnique(workspaceId, fields satisfies WorkspaceChanges);
  if (!updated) return NOT_FOUND;
  if (!updated.ok) return taken(updated.existingId);
  if (strictness !== undefined && strictness !== before.strictness)
    await deps.reports.setStrictness(workspaceId, strictness);
  if (shareReports !== undefined) await deps.reports.setSharing(workspaceId, shareReports);
  // Even when it was off already: a review kept by a job that raced the last switch goes too.
  if (shareReports === false) await deps.examples.forget(workspaceId);
  if (languages !== undefined) await deps.reports.setExpectedLanguages(workspaceId, languages);
  const after = await readWorkspaceView(deps, updated.workspace);
  await audit(deps, actor, {
    action: "workspace.update",
    target: workspaceId,
    workspaceId,
    before: audited(before, current),
    after: audited(after, updated.workspace),
  });
  // A new plan or allowance can resume a paused site (or start a grace) now: the usage script
  // records it and raises its webhooks, once, as a classify call would have.
  if (updated.workspace.plan !== current.plan || updated.workspace.allowance !== current.allowance) {
    await deps.usage
      .observe(updated.workspace)
      .then(({ status, events }) =>
        events ? emitUsageEvents(deps.webhooks, workspaceId, status, events) : undefined,
      )
      .catch((err: unknown) =>
        logFailure(deps.logger, err, { workspaceId }, "usage webhook events not queued"),
      );
  }
  return done(after);
};

/**
 * `workspace.delete`: an operator's. Its keys stop at once: the key store deletes its
 * configurations (their key records), its record, directory entry, external id, usage, refusal
 * and verification counters first, and the entry is written then. Everything else that is the
 * site's is forgotten after (`forgetSite`). A crash midway leaves a site no key reaches and whose
 * record is gone, so a retried DELETE answers 404 as before, but forgets what was left all the
 * same. The audit trail keeps the site's entries, this one included: it records what was done.
 */
export const deleteWorkspace = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
): Promise<Outcome<WorkspaceView>> => {
  if (!reaches(actor, workspaceId)) return NOT_FOUND;
  if (!actor.operator) return OPERATOR_ONLY;
  const settings = await deps.reports.settings(workspaceId);
  const gone = await deps.keystore.deleteWorkspace(workspaceId);
  if (!gone) {
    // Only an id the key store could have made is looked for once its record is gone.
    if (isId("ws", workspaceId)) await forgetSite(deps, workspaceId);
    return NOT_FOUND;
  }
  const before = workspaceView(gone, settings);
  await audit(deps, actor, {
    action: "workspace.delete",
    target: gone.id,
    workspaceId: gone.id,
    before: audited(before, gone),
  });
  await forgetSite(deps, gone.id);
  return done(before);
};

/**
 * What a deleted site leaves besides its key records, each by the keys its store knows for that
 * workspace (no scan): its verdict log (the visitors' submissions, as `workspace.forget-log`);
 * its kept reviews and its layer with its lists, strictness, sharing and languages (more than
 * `feedback.forget`, which leaves the lists and settings); its own webhooks with their
 * deliveries; its console roles, invitations and second-factor rule. Each step deletes what is
 * there and nothing else, so it runs again on a half-forgotten site.
 */
const forgetSite = async (deps: OperationDeps, workspaceId: string): Promise<void> => {
  await deps.verdicts?.forget(workspaceId);
  await deps.examples.forget(workspaceId);
  await deps.reports.forgetWorkspace(workspaceId);
  for (const webhook of await deps.webhooks.of(workspaceId)) await deps.webhooks.delete(webhook.id);
  await deps.console?.forget(workspaceId);
};

/** `workspace.forget-log`: every verdict its log keeps, gone at once (who may ask is the door's: a console owner, the CLI). */
export const forgetLog = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
): Promise<Outcome<{ workspaceId: string; forgotten: true }>> => {
  if (!deps.verdicts || !(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  await deps.verdicts.forget(workspaceId);
  await audit(deps, actor, { action: "workspace.forget-log", target: workspaceId, workspaceId });
  return done({ workspaceId, forgotten: true });
};

/**
 * `feedback.forget`: what the workspace's reports taught its layer, and its reviews kept for the
 * deployment's model (issue 53); the answer is the layer's new version.
 */
export const forgetFeedback = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
): Promise<Outcome<{ workspaceId: string; forgotten: true; version: number }>> => {
  if (!(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  await deps.examples.forget(workspaceId);
  const version = await deps.reports.forget(workspaceId);
  await audit(deps, actor, {
    action: "feedback.forget",
    target: workspaceId,
    workspaceId,
    after: { version },
  });
  return done({ workspaceId, forgotten: true, version });
};

/**
 * `workspace.reindex`: an operator's, once after upgrading to 1.5 (workspaces made before the
 * directory are not in its lists); the answer and the entry count the workspaces indexed.
 */
export const reindexWorkspaces = async (
  deps: OperationDeps,
  actor: Actor,
): Promise<Outcome<{ reindexed: number }>> => {
  if (!actor.operator) return OPERATOR_ONLY;
  const reindexed = await deps.keystore.reindexWorkspaces();
  await audit(deps, actor, { action: "workspace.reindex", target: "*", after: { reindexed } });
  return done({ reindexed });
};
