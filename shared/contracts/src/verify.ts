import { z } from "zod";
import { VERIFY_TOO_LARGE_TEXT, VerifyMessage } from "./messages.ts";
import { jsonOrForm, jsonSchema, keyAuth, type OperationDoc } from "./openapi-parts.ts";

export const VerifyResponse = z.object({
  ok: z.boolean(),
  message: z.string().optional(),
});
export type VerifyResponse = z.infer<typeof VerifyResponse>;

const VerifyRequestDoc = z.object({
  solution: z.string().meta({ description: "The `_vendor` field the browser form sent." }),
  secretKey: z.string().optional(),
});

export const verifyDoc: OperationDoc = {
  summary: "Check a challenge solution",
  security: keyAuth,
  requestBody: { required: true, content: jsonOrForm(VerifyRequestDoc) },
  responses: {
    "200": {
      description: "Every outcome: ok, or ok false with one of these messages.",
      content: {
        "application/json": {
          schema: jsonSchema(VerifyResponse),
          examples: {
            accepted: { value: { ok: true } },
            ...Object.fromEntries(
              Object.values(VerifyMessage).map((m) => [m, { value: { ok: false, message: m } }]),
            ),
          },
        },
      },
    },
    "413": {
      description: "Body over 1 MB.",
      content: { "text/plain": { schema: { type: "string", const: VERIFY_TOO_LARGE_TEXT } } },
    },
  },
};
