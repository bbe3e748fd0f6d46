import type { Request, Response } from "express";
import type { Keystore, Workspace } from "@sift/keystore";
import type { Actor } from "@sift/operations";
import type { AccountStore, User } from "../clients/accounts.ts";
import type { AuditLog } from "../clients/audit.ts";
import { allows, type Action, type Role } from "../domain/roles.ts";
import { bare, NOT_FOUND_PAGE, messagePage, type Frame, type Screen } from "../views/layout.ts";
import type { SecondFactorStore } from "../clients/second-factor.ts";
import { html } from "../domain/html.ts";
import { secondFactorDemanded } from "../domain/second-factor.ts";
import { sendPage, type Visitor } from "./context.ts";
import { returnTarget } from "../domain/resume.ts";

export interface WorkspaceDeps {
  keystore: Keystore;
  accounts: AccountStore;
  audit: AuditLog;
  /** A second factor, where a workspace or the deployment asks for one (issue 41). */
  secondFactor?: SecondFactorStore | undefined;
  config?: { operatorSecondFactor?: "required" | "optional" | undefined };
}

const SECOND_FACTOR_NEEDED = bare(
  "A second factor is needed",
  html`<p>
      This site asks everyone who opens it to sign in with a second factor: a code from an authenticator app
      after the password.
    </p>
    <p>
      <a href="/console/account/second-factor">Set up a second factor</a> · <a href="/console/">Back</a>
    </p>`,
);

/** Sign-in, then back to the page asked for (a deep link opened signed out, issue 41). */
export const signInFor = (req: Request): string => {
  const next = returnTarget(req.originalUrl);
  return next ? `/console/sign-in?next=${encodeURIComponent(next)}` : "/console/sign-in";
};

/** What a workspace page knows: who, where, with which role, and the frame to draw. */
export interface Place {
  visitor: Visitor;
  workspace: Workspace;
  role: Role | "operator";
  frame: Frame;
  /**
   * The visitor as an operation (@sift/operations) sees them: an operator, or this workspace's
   * member. Every change a page makes is an operation, which records its own audit entry.
   */
  actor: Actor;
}

/**
 * The workspaces a member can open, for the switcher's list. An operator can open every one,
 * which at a host's scale is no list to send with each page: their switcher is a search
 * (DESIGN, "many sites"), so this is empty for them.
 */
export const workspacesFor = async (deps: WorkspaceDeps, user: User): Promise<Workspace[]> => {
  if (user.operator) return [];
  const ids = Object.keys(await deps.accounts.workspacesOf(user.id));
  const found = await Promise.all(ids.map((id) => deps.keystore.getWorkspace(id)));
  return found.filter((w): w is Workspace => w !== null).sort((a, b) => a.name.localeCompare(b.name));
};

/**
 * The workspace named by the URL, if the visitor's role there allows `action`; otherwise the
 * answer is sent (sign-in for no session; 404 for a workspace they are not in, the same as for one
 * that does not exist; 403 for a role too low) and null returned.
 */
export const enter = async (
  deps: WorkspaceDeps,
  req: Request,
  res: Response,
  screen: Screen,
  action: Action,
): Promise<Place | null> => {
  const visitor = res.locals.visitor;
  if (!visitor) {
    if (req.method === "GET") res.redirect(303, signInFor(req));
    else sendPage(res, 403, messagePage("Signed out", "Your session has ended. Sign in again."));
    return null;
  }
  const id = req.params["workspace"] as string;
  const role = visitor.user.operator ? "operator" : await deps.accounts.roleIn(id, visitor.user.id);
  const workspace = role ? await deps.keystore.getWorkspace(id) : null;
  if (!workspace || !role) {
    sendPage(res, 404, NOT_FOUND_PAGE);
    return null;
  }
  if (!allows(role, action)) {
    sendPage(res, 403, messagePage("Not allowed", `A ${role} of this site cannot change it.`));
    return null;
  }
  if (deps.secondFactor) {
    const demanded = secondFactorDemanded({
      operator: visitor.user.operator,
      workspaceRequires: await deps.secondFactor.requiredIn(id),
      operatorsRequired: deps.config?.operatorSecondFactor === "required",
    });
    if (demanded && !(await deps.secondFactor.enabled(visitor.user.id))) {
      sendPage(res, 403, SECOND_FACTOR_NEEDED);
      return null;
    }
  }
  const workspaces = await workspacesFor(deps, visitor.user);
  return {
    visitor,
    workspace,
    role,
    frame: {
      email: visitor.user.email,
      csrf: visitor.session.csrf,
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
      search: visitor.user.operator,
      current: { id: workspace.id, screen, name: workspace.name },
    },
    actor: {
      audit: { type: "user", id: visitor.user.email },
      operator: visitor.user.operator,
      workspaceId: workspace.id,
      userId: visitor.user.id,
    },
  };
};
