import { ENDPOINTS } from "./endpoints.ts";

/**
 * The public interface as OpenAPI 3.1, built from the same schemas and texts the services use:
 * one operation per entry of ENDPOINTS (each described beside its contract), plus the probes.
 */
export const openApiDocument = () => ({
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
    },
  },
  paths: {
    ...Object.fromEntries(Object.values(ENDPOINTS).map((e) => [e.path, { post: e.doc }])),
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
