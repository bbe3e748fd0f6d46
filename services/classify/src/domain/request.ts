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

type Refusal = { ok: false; message: string };
export type ClassifyInput = { ok: true; model: ModelName; fields: NormalizedField[] } | Refusal;
export type FeedbackInput = { ok: true; label: Label; fields: NormalizedField[] } | Refusal;

/**
 * A body as the route read it (routes/body-parts.ts): its control field (classify's `model`,
 * feedback's `label`) and its content, or null when it is neither a JSON object nor a form.
 */
export type BodyParts = { control: unknown; content: unknown } | null;

/** The classify service's part of DESIGN.md's order: 400 model → 400 content rules. */
export const readClassifyRequest = (
  parts: BodyParts,
  models: readonly ModelName[] = MODEL_NAMES,
): ClassifyInput => {
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
export const readFeedbackRequest = (parts: BodyParts): FeedbackInput => {
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
