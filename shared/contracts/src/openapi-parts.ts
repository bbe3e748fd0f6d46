import { z } from "zod";

/** Pieces every endpoint's OpenAPI description is built from (see openapi.ts). */
export const jsonSchema = (type: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(type) as Record<string, unknown>;
  return rest;
};

export const jsonResponse = (type: z.ZodType, description: string, messages?: readonly string[]) => ({
  description,
  content: {
    "application/json": {
      schema: jsonSchema(type),
      ...(messages
        ? { examples: Object.fromEntries(messages.map((m) => [m, { value: { ok: false, message: m } }])) }
        : {}),
    },
  },
});

/** A request body accepted as JSON or as a form (spec 4.1). */
export const jsonOrForm = (type: z.ZodType) => ({
  "application/json": { schema: jsonSchema(type) },
  "application/x-www-form-urlencoded": { schema: jsonSchema(type) },
});

/** A secret key in `Authorization: Bearer`, `X-Api-Key` or the body (spec 5). */
export const keyAuth = [{ bearer: [] }, { apiKey: [] }, {}];

/** A secret key on a call without a body (GET, DELETE): the headers only, never the query. */
export const headerKeyAuth = [{ bearer: [] }, { apiKey: [] }];

/** The query parameters of a call without a body, one per field of `type`. */
export const queryParameters = (type: z.ZodObject) => {
  const { properties = {}, required = [] } = jsonSchema(type) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: "query",
    required: required.includes(name),
    schema,
  }));
};

/** One operation of the OpenAPI document. */
export type OperationDoc = Record<string, unknown>;
