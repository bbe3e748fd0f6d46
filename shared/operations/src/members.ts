import { z } from "zod";
import { MEMBER_ROLES, type MemberRole } from "@sift/contracts";
import {
  NOT_FOUND,
  OPERATOR_ONLY,
  audit,
  done,
  failure,
  reachableWorkspace,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";

/** A user named by id (the console's member list) or by e-mail (the CLI); `role: null` takes theirs away. */
export const MemberChange = z.union([
  z.strictObject({ userId: z.string().min(1).max(64), role: z.enum(MEMBER_ROLES).nullable() }),
  z.strictObject({ email: z.string().min(1).max(320), role: z.enum(MEMBER_ROLES).nullable() }),
]);

export const LAST_OWNER =
  "A workspace keeps at least one owner: make someone else an owner first, then change or remove this one.";

export type MemberView = { workspaceId: string; userId: string; email: string; role: MemberRole | null };

/**
 * `member.role` / `member.remove`: a console user's role in a workspace, changed or taken away;
 * the last owner's is refused (a conflict) whichever door asks. Giving one to a user who is no
 * member is an operator's (the CLI's `console member set`): a workspace's owner invites instead.
 * Which members may ask is the console's (an owner); a change that changes nothing records nothing.
 */
export const setMemberRole = async (
  deps: OperationDeps,
  actor: Actor,
  workspaceId: string,
  input: unknown,
): Promise<Outcome<MemberView>> => {
  const parsed = validate(MemberChange, input);
  if (!parsed.ok) return parsed;
  if (!deps.members || !(await reachableWorkspace(deps, actor, workspaceId))) return NOT_FOUND;
  const { role } = parsed.value;
  const user =
    "userId" in parsed.value
      ? await deps.members.getUser(parsed.value.userId)
      : await deps.members.userByEmail(parsed.value.email);
  if (!user) return NOT_FOUND;
  const current = await deps.members.roleIn(workspaceId, user.id);
  const view = (r: MemberRole | null): MemberView => ({
    workspaceId,
    userId: user.id,
    email: user.email,
    role: r,
  });
  if (current === role) return done(view(role));
  let previous: MemberRole | null = null;
  if (current === null) {
    if (role === null || !actor.operator) return NOT_FOUND;
    await deps.members.setRole(workspaceId, user.id, role);
  } else {
    const changed = await deps.members.changeRole(workspaceId, user.id, role);
    if (!changed.ok) return changed.reason === "last-owner" ? failure("conflict", LAST_OWNER) : NOT_FOUND;
    previous = changed.previous;
  }
  await audit(deps, actor, {
    action: role === null ? "member.remove" : "member.role",
    // The e-mail a person knows them by (an account keeps its e-mail); the id is in the views.
    target: user.email,
    workspaceId,
    before: view(previous),
    ...(role === null ? {} : { after: view(role) }),
  });
  return done(view(role));
};

/**
 * `user.create`: a console account, an operator's (the first operator is made this way, by the
 * CLI). Which passwords are good enough is the door's to say before it asks; the password is
 * stored as a hash and never recorded. A taken e-mail is a conflict.
 */
export const createUser = async (
  deps: OperationDeps,
  actor: Actor,
  input: { email: string; password: string; operator: boolean },
): Promise<Outcome<{ userId: string; email: string; operator: boolean }>> => {
  if (!actor.operator) return OPERATOR_ONLY;
  if (!deps.members) return NOT_FOUND;
  const user = await deps.members.addUser(input);
  if (!user) return failure("conflict", `${input.email} already has an account`);
  const view = { userId: user.id, email: user.email, operator: user.operator };
  await audit(deps, actor, { action: "user.create", target: user.email, after: view });
  return done(view);
};
