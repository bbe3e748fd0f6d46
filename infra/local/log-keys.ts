import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The log key of a local stack (issue 41): `full` privacy mode seals a submission's text under
 * SIFT_LOG_KEYS, which a deployment sets (docs/console.md, "Keys for `full` mode"). `pnpm start`
 * makes one on its first run and keeps it beside Redis's data in `.sift/` (git-ignored, mode
 * 0600), so entries sealed yesterday still open after a restart, as Redis's data outlives one.
 * A SIFT_LOG_KEYS already in the environment wins and nothing is written.
 */
export const localLogKeys = (
  env: Record<string, string | undefined>,
  dir: string,
): { keys: string; made: boolean; file: string | null } => {
  const given = env["SIFT_LOG_KEYS"];
  if (given) return { keys: given, made: false, file: null };
  const file = join(dir, "log-keys");
  if (existsSync(file)) {
    const keys = readFileSync(file, "utf8").trim();
    if (keys) return { keys, made: false, file };
  }
  mkdirSync(dir, { recursive: true });
  const keys = `local1:${randomBytes(32).toString("base64")}`;
  writeFileSync(file, `${keys}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return { keys, made: true, file };
};
