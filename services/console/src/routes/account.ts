import type { Router } from "express";
import type { SessionStore } from "../clients/sessions.ts";
import { accountPage } from "../views/account.ts";
import { NOT_FOUND_PAGE } from "../views/layout.ts";
import { clearCookie, field, formFields, SESSION_COOKIE, sendPage } from "./context.ts";
import { signInFor, workspacesFor, type WorkspaceDeps } from "./workspace.ts";

/** Your sessions: the signed-in user's sessions, revoking one, and signing out everywhere (sign-in.ts). */
export const accountRoutes = (router: Router, deps: WorkspaceDeps & { sessions: SessionStore }): void => {
  router.get("/console/account", async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, signInFor(req));
    const [workspaces, sessions] = await Promise.all([
      workspacesFor(deps, visitor.user),
      deps.sessions.list(visitor.user.id),
    ]);
    const frame = {
      email: visitor.user.email,
      csrf: visitor.session.csrf,
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
      search: visitor.user.operator,
    };
    sendPage(res, 200, accountPage(frame, sessions, visitor.session.id));
  });

  router.post("/console/account/sessions/revoke", async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, "/console/sign-in");
    const revoked = await deps.sessions.revoke(visitor.user.id, field(formFields(req), "session"));
    if (!revoked) return sendPage(res, 404, NOT_FOUND_PAGE);
    if (revoked.id !== visitor.session.id) return res.redirect(303, "/console/account");
    clearCookie(req, res, SESSION_COOKIE);
    res.redirect(303, "/console/sign-in");
  });
};
