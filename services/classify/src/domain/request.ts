import {
  ClassifyMessage,
  invalidFieldMessage,
  MODEL_NAMES,
  unknownModelMessage,
  type ModelName,
  type NormalizedField,
} from "@sift/contracts";
import { prepareContent } from "@sift/content";
import { bodyField, isJsonObject, type ParsedBody } from "@sift/runtime";

export type ClassifyInput =
  { ok: true; model: ModelName; fields: NormalizedField[] } | { ok: false; message: string };

/**
 * The classify service's part of DESIGN.md's order: 400 model → 400 content rules. The body
 * was already found to be a JSON object or a form by the gateway; both are read here again.
 */
export const readClassifyRequest = (body: ParsedBody): ClassifyInput => {
  let model: unknown;
  let content: unknown;
  if (body.kind === "json" && isJsonObject(body.value)) {
    model = bodyField(body, "model");
    content = bodyField(body, "content");
  } else if (body.kind === "form") {
    // Spec 4.1: every form field is content except secretKey and _model.
    const { secretKey: _key, _model, ...fields } = body.value;
    model = _model;
    content = fields;
  } else {
    return { ok: false, message: ClassifyMessage.malformedJson };
  }

  if (model === undefined || model === null || model === "")
    return { ok: false, message: ClassifyMessage.missingModel };
  if (!isModelName(model)) {
    return {
      ok: false,
      message: unknownModelMessage(typeof model === "string" ? model : JSON.stringify(model)),
    };
  }

  const prepared = prepareContent(content);
  if (prepared.ok) return { ok: true, model, fields: prepared.fields };
  switch (prepared.reason) {
    case "not_content":
      return { ok: false, message: ClassifyMessage.contentType };
    case "invalid_field":
      return { ok: false, message: invalidFieldMessage(prepared.field) };
    case "empty":
      return { ok: false, message: ClassifyMessage.contentEmpty };
    case "too_many_fields":
      return { ok: false, message: ClassifyMessage.tooManyFields };
    case "too_long":
      return { ok: false, message: ClassifyMessage.tooLong };
  }
};

const isModelName = (value: unknown): value is ModelName =>
  typeof value === "string" && (MODEL_NAMES as readonly string[]).includes(value);
