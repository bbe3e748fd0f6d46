import type { RequestHandler } from "express";
import { openApiDocument, type EndpointTable } from "@sift/contracts";

/** How long caches may keep the document: it changes only with a release. */
const MAX_AGE_SECONDS = 300;

/**
 * GET /openapi.json: the public interface, generated from the contracts (the same document
 * `pnpm openapi` writes to docs/openapi.json). Serialised once; express adds the ETag, so a
 * revalidation is a 304.
 */
export const openApi = (endpoints: EndpointTable): RequestHandler => {
  const body = JSON.stringify(openApiDocument(endpoints));
  return (_req, res) => {
    res.setHeader("Cache-Control", `public, max-age=${MAX_AGE_SECONDS}`);
    res.type("application/json").send(body);
  };
};
