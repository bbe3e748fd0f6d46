import { z } from "zod";

export const Plan = z.enum(["free", "paid"]);
export type Plan = z.infer<typeof Plan>;
export const Kind = z.enum(["classify", "challenge"]);
export type Kind = z.infer<typeof Kind>;

/** Defaults of ../shared/DESIGN.md. */
export const DEFAULT_ALLOWANCE = 1_000;
export const DEFAULT_RATE_LIMIT = 20;
export const DEFAULT_BURST = 40;

export const Workspace = z.object({
  id: z.string(),
  name: z.string(),
  plan: Plan,
  allowance: z.number().int().nonnegative(),
  classify: z.boolean(),
  /** Requests per second for each classify key of the workspace. */
  rateLimit: z.number().positive(),
  burst: z.number().int().positive(),
  createdAt: z.number().int(),
});
export type Workspace = z.infer<typeof Workspace>;

export const Configuration = z.object({
  id: z.string(),
  workspaceId: z.string(),
  kind: Kind,
  keyId: z.string(),
  siteKey: z.string().optional(),
  /** Challenge configurations: life of an issued challenge and its proof-of-work difficulty. */
  challengeTtlMs: z.number().int().positive().optional(),
  difficulty: z.number().int().positive().optional(),
  createdAt: z.number().int(),
});
export type Configuration = z.infer<typeof Configuration>;

/** What the gateway needs about a key, fetched in one round trip. */
export interface ResolvedKeyRecord {
  keyId: string;
  configId: string;
  kind: Kind;
  workspaceId: string;
  plan: Plan;
  classify: boolean;
  rateLimit: number;
  burst: number;
  allowance: number;
}
