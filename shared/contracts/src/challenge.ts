import { z } from "zod";
import { jsonOrForm, type OperationDoc } from "./openapi-parts.ts";

/** The browser-facing challenge endpoint (issuing is ours: docs/challenge.md). */
export const challengeDoc: OperationDoc = {
  summary: "Issue a signed proof-of-work challenge (browser-facing, CORS, no secret key)",
  requestBody: { content: jsonOrForm(z.object({ siteKey: z.string() })) },
  parameters: [{ name: "siteKey", in: "query", schema: { type: "string" } }],
  responses: {
    "200": { description: "A signed challenge for the configuration of the site key." },
    "429": { description: "Too many challenges from this address." },
  },
};
