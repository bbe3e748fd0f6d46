import { hash, verify } from "@node-rs/argon2";

type HashOptions = NonNullable<Parameters<typeof hash>[1]>;
/** The package's `Algorithm.Argon2id` (a const enum, which this build cannot import by name). */
const ARGON2ID = 2 as NonNullable<HashOptions["algorithm"]>;

export interface PasswordParams {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/**
 * Passwords are hashed with Argon2id at OWASP's first recommended setting (19 MiB, 2 passes, one
 * lane). The PHC string records its parameters (`$argon2id$v=19$m=19456,t=2,p=1$…`), so a hash
 * made at lower settings is recognised (`needsRehash`) and replaced at the next sign-in.
 */
export const PASSWORD_PARAMS: Readonly<PasswordParams> = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export const hashPassword = (password: string, params: PasswordParams = PASSWORD_PARAMS): Promise<string> =>
  hash(password, { algorithm: ARGON2ID, ...params });

/** False for a wrong password and for a string that is not an Argon2 hash. */
export const checkPassword = async (stored: string, password: string): Promise<boolean> => {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
};

/** Whether `stored` was made with weaker parameters than today's (or is not Argon2id at all). */
export const needsRehash = (stored: string, params = PASSWORD_PARAMS): boolean => {
  const match = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(stored);
  if (!match) return true;
  const [m, t, p] = match.slice(1).map(Number) as [number, number, number];
  return m < params.memoryCost || t < params.timeCost || p < params.parallelism;
};

/** Why a new password is refused, or null when it is acceptable. */
export const passwordProblem = (password: string): string | null => {
  if (password.length < MIN_PASSWORD_LENGTH) return `at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
};
