import type { Request, Response, Router } from "express";
import {
  createInvitation,
  LAST_OWNER,
  revokeInvitation,
  setMemberRole,
  type OperationDeps,
} from "@sift/operations";
import type { InvitationStore } from "../clients/invitations.ts";
import { isRole } from "../domain/roles.ts";
import { NOT_FOUND_PAGE } from "../views/layout.ts";
import { inviteLinkPage, membersPage, type Member } from "../views/members.ts";
import { field, formFields, sendPage } from "./context.ts";
import { enter, type Place, type WorkspaceDeps } from "./workspace.ts";

export interface MembersDeps extends WorkspaceDeps {
  invitations: InvitationStore;
  /**
   * Role changes and removals are `member.*` operations, as the CLI's; invitations are
   * `invitation.*` operations (@sift/operations).
   */
  operations: OperationDeps;
}

/** The workspace's members with their e-mails, by e-mail. */
const membersOf = async (deps: MembersDeps, workspaceId: string): Promise<Member[]> => {
  const [roles, since] = await Promise.all([
    deps.accounts.membersOf(workspaceId),
    deps.accounts.memberSince(workspaceId),
  ]);
  const members = await Promise.all(
    Object.entries(roles).map(async ([id, role]) => {
      const user = await deps.accounts.getUser(id);
      return user ? { id, email: user.email, role, ...(since[id] ? { since: since[id] } : {}) } : null;
    }),
  );
  return members.filter((m): m is Member => m !== null).sort((a, b) => a.email.localeCompare(b.email));
};

/** The members page again, with what went wrong (or what happened) on it. */
const show = async (deps: MembersDeps, res: Response, place: Place, status: number, error?: string) => {
  const id = place.workspace.id;
  const [members, invitations, secondFactor] = await Promise.all([
    membersOf(deps, id),
    deps.invitations.pending(id),
    deps.secondFactor ? deps.secondFactor.requiredIn(id) : Promise.resolve(false),
  ]);
  sendPage(res, status, membersPage(place, members, invitations, error, "", secondFactor));
};

/** The user's role here, or null (no such user, or not a member). */
const roleOf = async (deps: MembersDeps, place: Place, userId: string) =>
  userId === "" ? null : deps.accounts.roleIn(place.workspace.id, userId);

/** A refused member change as the console shows it: the last owner kept (409), else not found. */
const refused = (deps: MembersDeps, res: Response, place: Place, code: string) =>
  code === "conflict" ? show(deps, res, place, 409, LAST_OWNER) : sendPage(res, 404, NOT_FOUND_PAGE);

/** Where the page was reached (the gateway's origin), for the invitation's link. */
const linkOrigin = (req: Request): string => {
  const tls = String(req.headers["x-forwarded-proto"] ?? "")
    .split(",")
    .some((p) => p.trim() === "https");
  return `${tls ? "https" : "http"}://${req.headers.host ?? "localhost:8080"}`;
};

/**
 * Members: the list for every member; an owner (or an operator) changes roles, removes members,
 * invites by a one-time link and revokes pending links. A workspace that has an owner keeps one.
 */
export const memberRoutes = (router: Router, deps: MembersDeps): void => {
  router.get("/console/w/:workspace/members", async (req, res) => {
    const place = await enter(deps, req, res, "members", "read");
    if (!place) return;
    await show(deps, res, place, 200);
  });

  router.post("/console/w/:workspace/members/role", async (req, res) => {
    const place = await enter(deps, req, res, "members", "manage");
    if (!place) return;
    const fields = formFields(req);
    const role = field(fields, "role");
    if (!isRole(role)) return show(deps, res, place, 400, "Choose owner, editor or viewer.");
    const changed = await setMemberRole(deps.operations, place.actor, place.workspace.id, {
      userId: field(fields, "user"),
      role,
    });
    if (!changed.ok) return refused(deps, res, place, changed.code);
    res.redirect(303, `/console/w/${place.workspace.id}/members`);
  });

  router.post("/console/w/:workspace/members/remove", async (req, res) => {
    const place = await enter(deps, req, res, "members", "manage");
    if (!place) return;
    const userId = field(formFields(req), "user");
    const previous = await roleOf(deps, place, userId);
    // Not a member: the same 404 as no such user (the operation would answer it too).
    if (!previous) return sendPage(res, 404, NOT_FOUND_PAGE);
    const removed = await setMemberRole(deps.operations, place.actor, place.workspace.id, {
      userId,
      role: null,
    });
    if (!removed.ok) return refused(deps, res, place, removed.code);
    const self = userId === place.visitor.user.id && !place.visitor.user.operator;
    res.redirect(303, self ? "/console/" : `/console/w/${place.workspace.id}/members`);
  });

  router.post("/console/w/:workspace/members/invite", async (req, res) => {
    const place = await enter(deps, req, res, "members", "manage");
    if (!place) return;
    const fields = formFields(req);
    const invited = await createInvitation(deps.operations, place.actor, place.workspace.id, {
      email: field(fields, "email"),
      role: field(fields, "role"),
    });
    if (!invited.ok) {
      if (invited.code === "not_found") return sendPage(res, 404, NOT_FOUND_PAGE);
      return show(deps, res, place, invited.code === "conflict" ? 409 : 400, invited.message);
    }
    const { token, invitation } = invited.value;
    sendPage(res, 201, inviteLinkPage(place, invitation, `${linkOrigin(req)}/console/invite/${token}`));
  });

  router.post("/console/w/:workspace/members/invites/revoke", async (req, res) => {
    const place = await enter(deps, req, res, "members", "manage");
    if (!place) return;
    const revoked = await revokeInvitation(
      deps.operations,
      place.actor,
      place.workspace.id,
      field(formFields(req), "invite"),
    );
    if (!revoked.ok) return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${place.workspace.id}/members`);
  });
};
