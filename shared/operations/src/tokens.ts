import { TokenCreate, type TokenView } from "@sift/contracts";
import type { TokenRecord } from "@sift/keystore";
import {
  NOT_FOUND,
  OPERATOR_ONLY,
  audit,
  done,
  validate,
  type Actor,
  type OperationDeps,
  type Outcome,
} from "./context.ts";
import { tokenView } from "./views.ts";

/**
 * `token.create`: an operator's (a token is the deployment's door, whatever workspace it
 * reaches); the secret is in this answer only, never in the audit entry.
 */
export const createToken = async (
  deps: OperationDeps,
  actor: Actor,
  input: unknown,
): Promise<Outcome<TokenView & { token: string }>> => {
  const parsed = validate(TokenCreate, input);
  if (!parsed.ok) return parsed;
  if (!actor.operator) return OPERATOR_ONLY;
  const { workspaceId, expiresInSeconds, ...rest } = parsed.value;
  if (workspaceId !== undefined && !(await deps.keystore.getWorkspace(workspaceId))) return NOT_FOUND;
  const { record, token } = await deps.tokens.create({
    ...rest,
    ...(workspaceId ? { workspaceId } : {}),
    ...(expiresInSeconds ? { expiresAt: deps.clock.now() + expiresInSeconds * 1000 } : {}),
  });
  const view = tokenView(record);
  await audit(deps, actor, { action: "token.create", target: record.tokenId, workspaceId, after: view });
  return done({ ...view, token });
};

/** `token.revoke`: an operator's; the token is refused from its next call on. */
export const revokeToken = async (
  deps: OperationDeps,
  actor: Actor,
  tokenId: string,
): Promise<Outcome<TokenView>> => {
  if (!actor.operator) return OPERATOR_ONLY;
  const revoked: TokenRecord | null = await deps.tokens.revoke(tokenId);
  if (!revoked) return NOT_FOUND;
  const after = tokenView({ ...revoked, revokedAt: deps.clock.now() });
  await audit(deps, actor, {
    action: "token.revoke",
    target: revoked.tokenId,
    workspaceId: revoked.workspaceId,
    before: tokenView(revoked),
    after,
  });
  return done(after);
};
