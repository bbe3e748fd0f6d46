import {
  ClassifyMessage,
  FeedbackMessage,
  invalidFieldMessage,
  MODEL_NAMES,
  unknownModelMessage,
  type Label,
  type ModelName,
  type NormalizedField,
} from "@sift/contracts";
import { prepareContent } from "@sift/content";
import { bodyField, isJsonObject, type ParsedBody } from "@sift/runtime";

type Refusal = { ok: false; message: string };
export type ClassifyInput = { ok: true; model: ModelName; fields: NormalizedField[] } | Refusal;
export type FeedbackInput = { ok: true; label: Label; fields: NormalizedField[] } | Refusal;

/**
 * The body's control field (classify's `model`, feedback's `label`; in a form `_model` /
 * `_label`) and its content: in a form every field but `secretKey` and the control field
 * (spec 4.1). The gateway already found the body to be a JSON object or a form.
 */
const split = (body: ParsedBody, control: string): { control: unknown; content: unknown } | null => {
  if (body.kind === "json" && isJsonObject(body.value)) {
    return { control: bodyField(body, control), content: bodyField(body, "content") };
  }
  if (body.kind === "form") {
    const { secretKey: _key, [`_${control}`]: value, ...fields } = body.value;
    return { control: value, content: fields };
  }
  return null;
};

/** The classify service's part of DESIGN.md's order: 400 model → 400 content rules. */
export const readClassifyRequest = (
  body: ParsedBody,
  models: readonly ModelName[] = MODEL_NAMES,
): ClassifyInput => {
  const parts = split(body, "model");
  if (!parts) return { ok: false, message: ClassifyMessage.malformedJson };
  const { control: model } = parts;
  if (model === undefined || model === null || model === "")
    return { ok: false, message: ClassifyMessage.missingModel };
  if (!models.includes(model as ModelName)) {
    return {
      ok: false,
      message: unknownModelMessage(typeof model === "string" ? model : JSON.stringify(model), models),
    };
  }
  const content = contentRules(parts.content);
  return content.ok ? { ok: true, model: model as ModelName, fields: content.fields } : content;
};

/** POST /feedback: 400 label → 400 content rules (classify's rules and texts). */
export const readFeedbackRequest = (body: ParsedBody): FeedbackInput => {
  const parts = split(body, "label");
  if (!parts) return { ok: false, message: ClassifyMessage.malformedJson };
  const { control: label } = parts;
  if (label !== "spam" && label !== "clean") return { ok: false, message: FeedbackMessage.invalidLabel };
  const content = contentRules(parts.content);
  return content.ok ? { ok: true, label, fields: content.fields } : content;
};

/** Spec 2.1 and 8's content rules, with their 400 texts. */
const contentRules = (content: unknown): { ok: true; fields: NormalizedField[] } | Refusal => {
  const prepared = prepareContent(content);
  if (prepared.ok) return prepared;
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
