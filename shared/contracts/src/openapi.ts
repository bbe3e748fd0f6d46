import { dropInPaths } from "./drop-in.ts";
import { ENDPOINTS, type EndpointTable } from "./endpoints.ts";
import { managementPaths } from "./management-doc.ts";
import type { OperationDoc } from "./openapi-parts.ts";

/**
 * One path item per path, one operation per method (lowercase, as OpenAPI names them), in the
 * table's order. Session endpoints (the console's pages) are for people, not the API: left out.
 */
export const apiPaths = (endpoints: EndpointTable): Record<string, Record<string, OperationDoc>> => {
  const paths: Record<string, Record<string, OperationDoc>> = {};
  for (const endpoint of Object.values(endpoints)) {
    if (endpoint.access === "session") continue;
    (paths[endpoint.path] ??= {})[endpoint.method.toLowerCase()] = endpoint.doc;
  }
  return paths;
};

/**
 * The public interface as OpenAPI 3.1, built from the same schemas and texts the services use:
 * one operation per API entry of ENDPOINTS (each described beside its contract), the drop-in
 * vendors' shapes (drop-in.ts), plus the probes.
 */
export const openApiDocument = (endpoints: EndpointTable = ENDPOINTS) => ({
  openapi: "3.1.0",
  info: {
    title: "Sift",
    version: "1",
    description: "Spam classification and challenge verification for web forms.",
  },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
      // The management API's `st_…` tokens (DESIGN, "management tokens") use `bearer` too.
    },
  },
  paths: {
    ...apiPaths(endpoints),
    ...dropInPaths(),
    ...managementPaths(),
    "/openapi.json": {
      get: {
        summary: "This document (cacheable for five minutes)",
        responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": {} } } },
      },
    },
    "/healthz": { get: { summary: "The process is alive", responses: { "200": { description: "Alive" } } } },
    "/readyz": {
      get: {
        summary: "Redis, NATS and both services answer",
        responses: {
          "200": { description: "Ready" },
          "503": { description: "A dependency failed; named in the body." },
        },
      },
    },
  },
});
