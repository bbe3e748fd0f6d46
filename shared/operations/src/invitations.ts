import { isEmail, MEMBER_ROLES, normalizeEmail, type MemberRole } from "@sift/contracts";
import {
  NOT_FOUND,
  audit,
  done,
  failure,
  reachableWorkspace,
  type Actor,
  type InvitationView,
  type OperationDeps,
  type Outcome,
} from "./context.ts";

export const NOT_AN_EMAIL = "That is not an e-mail address.";
export const CHOOSE_A_ROLE = "Choose owner, editor or viewer.";
const isRole = (role: string): role is MemberRole => (MEMBER_ROLES as readonly string[]).includes(role);

/**
 * `invitation.create`: a one-time link that makes whoever opens it with this e-mail a member with
 * this role. The e-mail is kept normalised (as accounts keep theirs); one that is a member already
 * is a conflict (their role is changed in the list instead). Which members may invite is the
 * console's (an owner); the token is in the answer only, never in the audit entry.
 */
export const createInvitation = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: { email: string; role: string },
): Promise<Outcome<{ token: string; invitation: InvitationView }>> => {
  const email = normalizeEmail(input.email);
  if (!isEmail(email)) return failure("invalid", NOT_AN_EMAIL);
  const { role } = input;
  if (!isRole(role)) return failure("invalid", CHOOSE_A_ROLE);
  if (!deps.invitations || !deps.members || !(await reachableWorkspace(deps, actor, workspaceId)))
    return NOT_FOUND;
  const existing = await deps.members.userByEmail(email);
  if (existing && (await deps.members.roleIn(workspaceId, existing.id)))
    return failure("conflict", `${email} is a member already: change their role in the list.`);
  const made = await deps.invitations.create({ workspaceId, email, role, invitedBy: actor.audit.id });
  await audit(deps, actor, {
    action: "invitation.create",
    target: email,
    workspaceId,
    after: { email, role },
  });
  return done(made);
};

/** `invitation.revoke`: a pending link of this workspace stops working; another's reads as unknown. */
export const revokeInvitation = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  invitationId: string,
): Promise<Outcome<InvitationView>> => {
  if (!deps.invitations || !(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const revoked = await deps.invitations.revoke(workspaceId, invitationId);
  if (!revoked) return NOT_FOUND;
  await audit(deps, actor, {
    action: "invitation.revoke",
    target: revoked.email,
    workspaceId,
    before: { email: revoked.email, role: revoked.role },
  });
  return done(revoked);
};

/**
 * `member.join`: the invitee becomes a member with the invitation's role; one who is a member
 * already keeps theirs. The invitation is the authority: the door has taken it (once) and the
 * actor is the account of its e-mail, acting as themselves.
 */
export const joinWorkspace = async (
  deps: OperationDeps,
  actor: Actor,
  invitation: Pick<InvitationView, "workspaceId" | "email" | "role">,
): Promise<Outcome<{ workspaceId: string; role: MemberRole }>> => {
  const { workspaceId } = invitation;
  if (!deps.members || actor.userId === undefined) return NOT_FOUND;
  if (actor.audit.id !== invitation.email || !(await reachableWorkspace(deps, actor, workspaceId)))
    return NOT_FOUND;
  const current = await deps.members.roleIn(workspaceId, actor.userId);
  if (!current) await deps.members.setRole(workspaceId, actor.userId, invitation.role);
  const role = current ?? invitation.role;
  await audit(deps, actor, { action: "member.join", target: actor.audit.id, workspaceId, after: { role } });
  return done({ workspaceId, role });
};
