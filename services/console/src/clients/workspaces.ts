import { ConsoleStore } from "./store.ts";

/** What `forget` found and removed of one workspace. */
export interface ConsoleWorkspaceForgotten {
  /** Members whose role there is gone (each account stays: it may belong to other sites). */
  members: number;
  /** Pending invitations whose links no longer open. */
  invitations: number;
}

/**
 * What the console keeps of one workspace beside the key store: its members' roles (and each
 * member's entry for it in their own list of sites), when they joined, its pending invitations
 * and whether it asks for a second factor. `workspace.delete` forgets them here through
 * @sift/operations' ConsoleWorkspaceRecords, whichever door deleted the site, so the /v1
 * service and the CLI build this too. It imports nothing but the console's names of keys.
 */
export class ConsoleWorkspaces extends ConsoleStore {
  /**
   * Forgets the workspace's roles, invitations and second-factor rule. Each member's own entry
   * and each invitation's record go first, the workspace's hashes that name them last (one DEL,
   * one slot: they share the `{<workspace id>}` tag): a crash midway leaves the hashes, and a
   * second run finds what is left through them. Nothing is scanned: the hashes are the index.
   */
  async forget(workspaceId: string): Promise<ConsoleWorkspaceForgotten> {
    const members = await this.redis.hkeys(this.keys.members(workspaceId));
    for (const userId of members) await this.redis.hdel(this.keys.userWorkspaces(userId), workspaceId);
    const invitations = await this.redis.hvals(this.keys.invites(workspaceId));
    for (const tokenHash of invitations) await this.redis.del(this.keys.invite(tokenHash));
    await this.redis.del(
      this.keys.members(workspaceId),
      this.keys.memberSince(workspaceId),
      this.keys.invites(workspaceId),
      this.keys.workspaceSecondFactor(workspaceId),
    );
    return { members: members.length, invitations: invitations.length };
  }
}
