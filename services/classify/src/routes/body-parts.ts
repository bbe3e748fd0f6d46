import type { Request } from "express";
import { bodyField, isJsonObject, requestBody } from "@sift/runtime";
import type { BodyParts } from "../domain/request.ts";

/**
 * The body's control field (classify's `model`, feedback's `label`; in a form `_model` /
 * `_label`) and its content: in a form every field but `secretKey` and the control field
 * (spec 4.1). The gateway already found the body to be a JSON object or a form.
 */
export const bodyParts = (req: Request, control: string): BodyParts => {
  const body = requestBody(req);
  if (body.kind === "json" && isJsonObject(body.value)) {
    return { control: bodyField(body, control), content: bodyField(body, "content") };
  }
  if (body.kind === "form") {
    const { secretKey: _key, [`_${control}`]: value, ...fields } = body.value;
    return { control: value, content: fields };
  }
  return null;
};
