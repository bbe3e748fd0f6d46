import type { Clock, RedisClient } from "@sift/runtime";

/**
 * Where the console keeps its users, memberships and sessions (one key per command:
 * cluster-safe). Its audit entries are the deployment's trail's (clients/audit.ts); the lists it
 * kept before issue 58 under `sift:console:audit:{<workspace>}` are read no more.
 */
export const consoleLayout = (prefix = "sift:console:") => ({
  user: (id: string) => `${prefix}user:${id}`,
  userByEmail: (email: string) => `${prefix}user-email:${email}`,
  users: `${prefix}users`,
  /** Hash: user id → role in the workspace. */
  members: (workspaceId: string) => `${prefix}members:{${workspaceId}}`,
  /** Hash: workspace id → the user's role there. */
  userWorkspaces: (userId: string) => `${prefix}user-ws:${userId}`,
  session: (tokenHash: string) => `${prefix}session:${tokenHash}`,
  userSessions: (userId: string) => `${prefix}user-sessions:${userId}`,
  /** A secret waiting to be shown once to one session (clients/flash.ts). */
  secretFlash: (sessionId: string, configId: string) => `${prefix}flash:${sessionId}:${configId}`,
  /** Hash: user id → when they joined the workspace (ms); beside `members`, in its slot. */
  memberSince: (workspaceId: string) => `${prefix}member-since:{${workspaceId}}`,
  /** An invitation under the SHA-256 of its link's token (JSON, expiring with it). */
  invite: (tokenHash: string) => `${prefix}invite:${tokenHash}`,
  /** Hash: invitation id → its token's hash, the workspace's pending invitations. */
  invites: (workspaceId: string) => `${prefix}invites:{${workspaceId}}`,
  /** String, present while the workspace asks every member for a second factor (clients/second-factor.ts). */
  workspaceSecondFactor: (workspaceId: string) => `${prefix}ws-second-factor:{${workspaceId}}`,
});

export interface ConsoleStoreDeps {
  redis: RedisClient;
  clock: Clock;
  /** The prefix of every console key; `sift:console:` unless a test keeps to its own. */
  prefix?: string;
}

/**
 * The base of the console's Redis-backed stores (accounts, sessions, audit log): one client, the clock, and the console's layout of Redis names.
 */
export abstract class ConsoleStore {
  protected readonly redis: RedisClient;
  protected readonly clock: Clock;
  protected readonly keys: ReturnType<typeof consoleLayout>;

  constructor(deps: ConsoleStoreDeps) {
    this.redis = deps.redis;
    this.clock = deps.clock;
    this.keys = consoleLayout(deps.prefix);
  }
}
