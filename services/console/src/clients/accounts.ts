import { randomBytes } from "node:crypto";
import { isEmail, normalizeEmail } from "@sift/contracts";
import { ConsoleStore } from "./store.ts";
import { hashPassword } from "../domain/password.ts";
import { isRole, type Role } from "../domain/roles.ts";

export interface User {
  id: string;
  email: string;
  operator: boolean;
  createdAt: number;
}

/** KEYS: the members hash and the since hash; ARGV: user id, new role ("" removes). */
const CHANGE_ROLE = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return 'not-member' end
if current == 'owner' and ARGV[2] ~= 'owner' then
  local owners = 0
  for _, role in ipairs(redis.call('HVALS', KEYS[1])) do
    if role == 'owner' then owners = owners + 1 end
  end
  if owners <= 1 then return 'last-owner' end
end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
return current
`;

/** The e-mail rule is the contracts' (an invitation's operation checks it too); the CLI imports it from here. */
export { isEmail, normalizeEmail };

/**
 * Console users (e-mail, Argon2id password hash, operator flag) and their role in each
 * workspace. The CLI creates the first operator here; the console signs users in against it.
 */
export class AccountStore extends ConsoleStore {
  /** A new user, or null when the e-mail is taken. */
  async addUser(input: { email: string; password: string; operator: boolean }): Promise<User | null> {
    const email = normalizeEmail(input.email);
    const user: User = {
      id: `usr_${randomBytes(12).toString("base64url")}`,
      email,
      operator: input.operator,
      createdAt: this.clock.now(),
    };
    const claimed = await this.redis.set(this.keys.userByEmail(email), user.id, "NX");
    if (claimed !== "OK") return null;
    await this.redis.hset(this.keys.user(user.id), {
      ...user,
      operator: user.operator ? "1" : "0",
      passwordHash: await hashPassword(input.password),
    });
    await this.redis.sadd(this.keys.users, user.id);
    return user;
  }

  async getUser(id: string): Promise<User | null> {
    const row = await this.redis.hgetall(this.keys.user(id));
    if (!row["id"] || !row["email"]) return null;
    return {
      id: row["id"],
      email: row["email"],
      operator: row["operator"] === "1",
      createdAt: Number(row["createdAt"]),
    };
  }

  /** The user and their password hash, for sign-in; null for an unknown e-mail. */
  async credentials(email: string): Promise<{ user: User; passwordHash: string } | null> {
    const id = await this.redis.get(this.keys.userByEmail(normalizeEmail(email)));
    if (!id) return null;
    const [user, passwordHash] = await Promise.all([
      this.getUser(id),
      this.redis.hget(this.keys.user(id), "passwordHash"),
    ]);
    return user && passwordHash ? { user, passwordHash } : null;
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.redis.hset(this.keys.user(userId), "passwordHash", passwordHash);
  }

  async userByEmail(email: string): Promise<User | null> {
    const id = await this.redis.get(this.keys.userByEmail(normalizeEmail(email)));
    return id ? this.getUser(id) : null;
  }

  /** Gives the user `role` in the workspace (replacing any other), or takes it away (null). */
  async setRole(workspaceId: string, userId: string, role: Role | null): Promise<void> {
    if (role === null) {
      await this.redis.hdel(this.keys.members(workspaceId), userId);
      await this.redis.hdel(this.keys.memberSince(workspaceId), userId);
      await this.redis.hdel(this.keys.userWorkspaces(userId), workspaceId);
      return;
    }
    await this.redis.hset(this.keys.members(workspaceId), userId, role);
    await this.redis.hsetnx(this.keys.memberSince(workspaceId), userId, this.clock.now());
    await this.redis.hset(this.keys.userWorkspaces(userId), workspaceId, role);
  }

  /**
   * Changes a member's role (or removes them: null) unless that would leave the workspace without
   * an owner when it has one: checked and written in one script, so two owners demoting each other
   * at once cannot both succeed. The previous role, or why nothing changed.
   */
  async changeRole(
    workspaceId: string,
    userId: string,
    role: Role | null,
  ): Promise<{ ok: true; previous: Role } | { ok: false; reason: "not-member" | "last-owner" }> {
    const answer = (await this.redis.eval(
      CHANGE_ROLE,
      2,
      this.keys.members(workspaceId),
      this.keys.memberSince(workspaceId),
      userId,
      role ?? "",
    )) as string;
    if (answer === "not-member" || answer === "last-owner") return { ok: false, reason: answer };
    if (role === null) await this.redis.hdel(this.keys.userWorkspaces(userId), workspaceId);
    else await this.redis.hset(this.keys.userWorkspaces(userId), workspaceId, role);
    return { ok: true, previous: isRole(answer) ? answer : "viewer" };
  }

  /** User id → when they became a member (ms); members made before this was kept are missing. */
  async memberSince(workspaceId: string): Promise<Record<string, number>> {
    const all = await this.redis.hgetall(this.keys.memberSince(workspaceId));
    return Object.fromEntries(Object.entries(all).map(([id, at]) => [id, Number(at)]));
  }

  /** The user's role in the workspace, or null when they are not a member. */
  async roleIn(workspaceId: string, userId: string): Promise<Role | null> {
    const role = await this.redis.hget(this.keys.members(workspaceId), userId);
    return isRole(role) ? role : null;
  }

  /** Workspace id → role, for every workspace the user is a member of. */
  async workspacesOf(userId: string): Promise<Record<string, Role>> {
    const all = await this.redis.hgetall(this.keys.userWorkspaces(userId));
    return Object.fromEntries(Object.entries(all).filter((e): e is [string, Role] => isRole(e[1])));
  }

  /** User id → role, for every member of the workspace. */
  async membersOf(workspaceId: string): Promise<Record<string, Role>> {
    const all = await this.redis.hgetall(this.keys.members(workspaceId));
    return Object.fromEntries(Object.entries(all).filter((e): e is [string, Role] => isRole(e[1])));
  }

  async hasOperator(): Promise<boolean> {
    const ids = await this.redis.smembers(this.keys.users);
    const flags = await Promise.all(ids.map((id) => this.redis.hget(this.keys.user(id), "operator")));
    return flags.includes("1");
  }
}
