import { MEMBER_ROLES, type MemberRole } from "@sift/contracts";

/**
 * Who may do what in a workspace. An operator may do everything everywhere; in a workspace a
 * viewer reads, an editor also changes configurations and lists, an owner also manages members.
 */
export const ROLES = MEMBER_ROLES;
export type Role = MemberRole;

export type Action = "read" | "edit" | "manage";

const NEEDS: Record<Action, Role> = { read: "viewer", edit: "editor", manage: "owner" };

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/** Whether `role` (the user's in this workspace; `operator` for an operator) allows `action`. */
export const allows = (role: Role | "operator" | null, action: Action): boolean => {
  if (role === "operator") return true;
  if (role === null) return false;
  return ROLES.indexOf(role) >= ROLES.indexOf(NEEDS[action]);
};
