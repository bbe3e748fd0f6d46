import { z } from "zod";

export const VerifyResponse = z.object({
  ok: z.boolean(),
  message: z.string().optional(),
});
export type VerifyResponse = z.infer<typeof VerifyResponse>;
