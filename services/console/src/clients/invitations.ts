import { createHash, randomBytes } from "node:crypto";
import { isRole, type Role } from "../domain/roles.ts";
import { ConsoleStore, type ConsoleStoreDeps } from "./store.ts";

export interface Invitation {
  /** A public handle for the list and its revoke button (not the token, nor its hash). */
  id: string;
  workspaceId: string;
  email: string;
  role: Role;
  /** The inviter's e-mail as it was then. */
  invitedBy: string;
  createdAt: number;
  expiresAt: number;
}

const digest = (token: string): string => createHash("sha256").update(token).digest("hex");

/** A link's token: 32 random bytes in base64url (43 characters), nothing else is looked up. */
const TOKEN = /^[\w-]{43}$/;

/**
 * One-time invitation links: the token lives only in the link shown once to the inviter; Redis
 * keeps the invitation under the token's SHA-256, expiring with it, and the workspace's list of
 * pending ones (id → hash). Taking one deletes it in the same command that reads it (GETDEL), so
 * two accepts of one link cannot both succeed.
 */
export class InvitationStore extends ConsoleStore {
  readonly #lifetimeMs: number;

  constructor(deps: ConsoleStoreDeps & { lifetimeMs: number }) {
    super(deps);
    this.#lifetimeMs = deps.lifetimeMs;
  }

  async create(input: {
    workspaceId: string;
    email: string;
    role: Role;
    invitedBy: string;
  }): Promise<{ token: string; invitation: Invitation }> {
    const token = randomBytes(32).toString("base64url");
    const now = this.clock.now();
    const invitation: Invitation = {
      id: `inv_${randomBytes(9).toString("base64url")}`,
      ...input,
      createdAt: now,
      expiresAt: now + this.#lifetimeMs,
    };
    const hash = digest(token);
    await this.redis.set(this.keys.invite(hash), JSON.stringify(invitation), "PX", this.#lifetimeMs);
    await this.redis.hset(this.keys.invites(input.workspaceId), invitation.id, hash);
    return { token, invitation };
  }

  /** The live invitation of a link's token, left in place; null when unknown, used, revoked or expired. */
  async peek(token: string): Promise<Invitation | null> {
    if (!TOKEN.test(token)) return null;
    return this.#live(await this.redis.get(this.keys.invite(digest(token))));
  }

  /** The live invitation of a link's token, deleted as it is read: it is used now. */
  async take(token: string): Promise<Invitation | null> {
    if (!TOKEN.test(token)) return null;
    const invitation = this.#live(await this.redis.getdel(this.keys.invite(digest(token))));
    if (invitation) await this.redis.hdel(this.keys.invites(invitation.workspaceId), invitation.id);
    return invitation;
  }

  /** Puts back an invitation taken but not used (the account it was for appeared meanwhile). */
  async restore(token: string, invitation: Invitation): Promise<void> {
    const left = invitation.expiresAt - this.clock.now();
    if (left <= 0) return;
    const hash = digest(token);
    await this.redis.set(this.keys.invite(hash), JSON.stringify(invitation), "PX", left);
    await this.redis.hset(this.keys.invites(invitation.workspaceId), invitation.id, hash);
  }

  /** The workspace's pending invitations, oldest first; expired ones leave the list as it is read. */
  async pending(workspaceId: string): Promise<Invitation[]> {
    const index = await this.redis.hgetall(this.keys.invites(workspaceId));
    const found: Invitation[] = [];
    for (const [id, hash] of Object.entries(index)) {
      const invitation = this.#live(await this.redis.get(this.keys.invite(hash)));
      if (invitation) found.push(invitation);
      else await this.redis.hdel(this.keys.invites(workspaceId), id);
    }
    return found.sort((a, b) => a.createdAt - b.createdAt);
  }

  /** Revokes a pending invitation of this workspace; null when it has none by that id. */
  async revoke(workspaceId: string, id: string): Promise<Invitation | null> {
    const hash = await this.redis.hget(this.keys.invites(workspaceId), id);
    if (!hash) return null;
    await this.redis.hdel(this.keys.invites(workspaceId), id);
    return this.#live(await this.redis.getdel(this.keys.invite(hash)));
  }

  /** Parsed, and only while the clock says it has not expired (Redis's expiry runs on its own time). */
  #live(json: string | null): Invitation | null {
    if (!json) return null;
    const invitation = JSON.parse(json) as Invitation;
    if (!isRole(invitation.role) || this.clock.now() >= invitation.expiresAt) return null;
    return invitation;
  }
}
