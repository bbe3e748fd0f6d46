import { z } from "zod";
import { TOKEN_EXPIRY_MAX_SECONDS, TokenScope } from "@sift/contracts";
import { createToken, revokeToken } from "@sift/operations";
import { UsageError, definedOnly, parse, required, type Command, type CliDeps } from "./commands.ts";
import { actorOf, unwrap } from "./operation-commands.ts";

/** `90d`, `12h`, `30m`, `45s`: a token's life. */
const Duration = z
  .string()
  .regex(/^\d{1,6}[smhd]$/, "a duration such as 90d, 12h or 30m")
  .transform(
    (v) => Number(v.slice(0, -1)) * { s: 1, m: 60, h: 3600, d: 86_400 }[v.at(-1) as "s" | "m" | "h" | "d"],
  )
  .pipe(z.number().int().min(1).max(TOKEN_EXPIRY_MAX_SECONDS));

const tokensOf = (deps: CliDeps) => {
  if (!deps.tokens) throw new Error("no token store");
  return deps.tokens;
};

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/**
 * `sift token …` (DESIGN, "management tokens"): the first operator token comes from here, with
 * Redis access, since no token exists yet to call POST /v1/tokens with.
 */
export const TOKEN_COMMANDS: Record<string, Command> = {
  "token create": {
    flags: ["name", "scope", "workspace", "expires-in"],
    booleans: ["read-only"],
    run: async (flags, deps) => {
      const scope = parse(TokenScope, required(flags, "scope"), "scope")!;
      const workspaceId = flags["workspace"];
      if (scope === "workspace" && !workspaceId)
        throw new UsageError("--workspace is required with --scope workspace");
      if (scope === "operator" && workspaceId)
        throw new UsageError("--workspace goes with --scope workspace only");
      const input = {
        name: required(flags, "name"),
        scope,
        readOnly: flags["read-only"] === "true",
        ...definedOnly({ workspaceId, expiresInSeconds: parse(Duration, flags["expires-in"], "expires-in") }),
      };
      const created = unwrap(
        await createToken(deps.operations, actorOf(deps), input),
        `no workspace ${workspaceId}`,
      );
      return { tokenId: created.tokenId, token: created.token };
    },
  },
  "token list": {
    flags: ["limit", "cursor"],
    run: async (flags, deps) => {
      const limit = parse(z.coerce.number().int().min(1).max(1000), flags["limit"], "limit") ?? 100;
      const page = await tokensOf(deps).page(limit, flags["cursor"] ?? null);
      return {
        data: page.data.map((t) => ({
          tokenId: t.tokenId,
          name: t.name,
          scope: t.scope,
          workspaceId: t.workspaceId ?? null,
          readOnly: t.readOnly,
          createdAt: iso(t.createdAt),
          expiresAt: iso(t.expiresAt),
          lastUsedAt: iso(t.lastUsedAt),
          revokedAt: iso(t.revokedAt),
        })),
        nextCursor: page.next,
      };
    },
  },
  "token revoke": {
    flags: ["token"],
    run: async (flags, deps) => {
      const tokenId = required(flags, "token");
      unwrap(await revokeToken(deps.operations, actorOf(deps), tokenId), `no token ${tokenId}`);
      return { tokenId, revoked: true };
    },
  },
};
