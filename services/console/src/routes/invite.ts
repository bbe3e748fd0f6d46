import type { Request, Response, Router } from "express";
import { identityOf } from "@sift/runtime";
import { joinWorkspace, type Actor, type OperationDeps } from "@sift/operations";
import type { Keystore } from "@sift/keystore";
import type { AccountStore, User } from "../clients/accounts.ts";
import type { Invitation, InvitationStore } from "../clients/invitations.ts";
import type { SessionStore } from "../clients/sessions.ts";
import type { SignInThrottle } from "../clients/throttle.ts";
import { checkPassword, passwordProblem } from "../domain/password.ts";
import { INVITE_GONE_PAGE, invitePage, type InviteView } from "../views/invite.ts";
import {
  clearCookie,
  field,
  formFields,
  newToken,
  parseCookies,
  PRESESSION_COOKIE,
  SESSION_COOKIE,
  sendPage,
  sessionOrigin,
  setCookie,
} from "./context.ts";
import { WRONG_CREDENTIALS } from "./sign-in.ts";

export interface InviteDeps {
  keystore: Keystore;
  accounts: AccountStore;
  sessions: SessionStore;
  invitations: InvitationStore;
  throttle: SignInThrottle;
  /** Joining is `member.join` (@sift/operations). */
  operations: OperationDeps;
  decoyHash: string;
  absoluteMs: number;
}

/** The invitation of the URL's token and its workspace's name, or null (the link is dead). */
const invitationOf = async (deps: InviteDeps, req: Request) => {
  const token = req.params["token"] as string;
  const invitation = await deps.invitations.peek(token);
  const workspace = invitation ? await deps.keystore.getWorkspace(invitation.workspaceId) : null;
  return invitation && workspace ? { token, invitation, workspaceName: workspace.name } : null;
};

/** Who reads the page: the invitee signed in, someone else signed in, or no one (account or not). */
const readerOf = async (
  deps: InviteDeps,
  res: Response,
  invitation: Invitation,
): Promise<InviteView["reader"]> => {
  const visitor = res.locals.visitor;
  if (visitor)
    return visitor.user.email === invitation.email
      ? { as: "join" }
      : { as: "other", email: visitor.user.email };
  return (await deps.accounts.userByEmail(invitation.email)) ? { as: "sign-in" } : { as: "new" };
};

/**
 * The page an invitation's link opens, outside any workspace and reachable without a session
 * (like sign-in: the form's CSRF token matches the pre-session cookie until there is a session).
 * Accepting takes the invitation (once: GETDEL) and makes the invitee a member; a new e-mail
 * chooses a password first, an existing account signs in (throttled like sign-in) or is signed in
 * already. A new session starts for whoever was not signed in. Dead links answer 410.
 */
export const inviteRoutes = (router: Router, deps: InviteDeps): void => {
  router.get("/console/invite/:token", async (req, res) => {
    const found = await invitationOf(deps, req);
    if (!found) return sendPage(res, 410, INVITE_GONE_PAGE);
    const visitor = res.locals.visitor;
    let csrf = visitor?.session.csrf;
    if (!csrf) {
      csrf = parseCookies(req.headers.cookie)[PRESESSION_COOKIE] ?? newToken();
      setCookie(req, res, PRESESSION_COOKIE, csrf);
    }
    sendPage(res, 200, invitePage({ ...found, csrf, reader: await readerOf(deps, res, found.invitation) }));
  });

  router.post("/console/invite/:token", async (req, res) => {
    const found = await invitationOf(deps, req);
    if (!found) return sendPage(res, 410, INVITE_GONE_PAGE);
    const { token, invitation } = found;
    const fields = formFields(req);
    const reader = await readerOf(deps, res, invitation);
    const again = (status: number, error: string) =>
      sendPage(res, status, invitePage({ ...found, csrf: field(fields, "_csrf"), reader, error }));

    /** Takes the invitation (it is used from here on) and makes the user a member. */
    const accept = async (user: User, newSession: boolean) => {
      if (!(await deps.invitations.take(token))) return sendPage(res, 410, INVITE_GONE_PAGE);
      if (!(await join(deps, invitation, user))) return sendPage(res, 410, INVITE_GONE_PAGE);
      if (newSession) return startSession(deps, req, res, user, invitation);
      res.redirect(303, `/console/w/${invitation.workspaceId}/sites`);
    };

    if (reader.as === "other") return again(403, `This invitation is for ${invitation.email}.`);
    if (reader.as === "join") return accept(res.locals.visitor!.user, false);
    if (reader.as === "sign-in") {
      const wait = await deps.throttle.take(identityOf(res).client ?? "unknown", invitation.email);
      if (wait > 0) {
        res.setHeader("Retry-After", String(Math.ceil(wait / 1000)));
        return again(429, `Too many attempts. Try again in ${Math.ceil(wait / 1000)} s.`);
      }
      const credentials = await deps.accounts.credentials(invitation.email);
      const ok = await checkPassword(credentials?.passwordHash ?? deps.decoyHash, field(fields, "password"));
      if (!credentials || !ok) return again(401, WRONG_CREDENTIALS);
      return accept(credentials.user, true);
    }
    const password = field(fields, "password");
    const problem = passwordProblem(password);
    if (problem) return again(400, `The password needs ${problem}.`);
    if (password !== field(fields, "repeat")) return again(400, "The two passwords differ.");
    if (!(await deps.invitations.take(token))) return sendPage(res, 410, INVITE_GONE_PAGE);
    const user = await deps.accounts.addUser({ email: invitation.email, password, operator: false });
    if (!user) {
      // The e-mail got an account since the page was shown: the link stays good for signing in.
      await deps.invitations.restore(token, invitation);
      const view = { ...found, csrf: field(fields, "_csrf"), reader: { as: "sign-in" } as const };
      return sendPage(
        res,
        409,
        invitePage({ ...view, error: `${invitation.email} has an account now: sign in to join.` }),
      );
    }
    if (!(await join(deps, invitation, user))) return sendPage(res, 410, INVITE_GONE_PAGE);
    await startSession(deps, req, res, user, invitation);
  });
};

/** `member.join` as the invitee; false when the workspace went meanwhile (the link is dead then). */
const join = async (deps: InviteDeps, invitation: Invitation, user: User): Promise<boolean> => {
  const invitee: Actor = {
    audit: { type: "user", id: user.email },
    operator: false,
    workspaceId: invitation.workspaceId,
    userId: user.id,
  };
  const joined = await joinWorkspace(deps.operations, invitee, invitation);
  return joined.ok;
};

/** A new session (a new token: rotated) for the invitee who was not signed in, then their workspace. */
const startSession = async (
  deps: InviteDeps,
  req: Request,
  res: Response,
  user: User,
  invitation: Invitation,
) => {
  const { token } = await deps.sessions.start(user.id, sessionOrigin(req, res));
  setCookie(req, res, SESSION_COOKIE, token, deps.absoluteMs);
  clearCookie(req, res, PRESESSION_COOKIE);
  res.redirect(303, `/console/w/${invitation.workspaceId}/sites`);
};
