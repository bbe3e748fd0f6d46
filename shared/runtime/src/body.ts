/**
 * One parser for request bodies, used by the gateway (to find the body key and to answer
 * `Malformed JSON body` before auth) and by the services (which parse again: both sides of a
 * boundary parse).
 */
export type FormValue = string | string[];
export type FormFields = Record<string, FormValue>;

export type ParsedBody =
  | { kind: "json"; value: unknown }
  | { kind: "form"; value: FormFields }
  | { kind: "malformed" }
  | { kind: "unsupported" };

export const mediaType = (contentType: string | undefined): string =>
  (contentType ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * A missing Content-Type is read as JSON (API clients forget it more often than they send
 * anything else); any type other than JSON or form-encoded is `unsupported`.
 */
export const parseBody = (contentType: string | undefined, raw: Buffer): ParsedBody => {
  const type = mediaType(contentType);
  if (type === "application/x-www-form-urlencoded") return { kind: "form", value: parseForm(raw) };
  if (type !== "" && type !== "application/json" && !type.endsWith("+json")) return { kind: "unsupported" };
  try {
    return { kind: "json", value: JSON.parse(raw.toString("utf8")) as unknown };
  } catch {
    return { kind: "malformed" };
  }
};

/** Form fields in order; a name sent more than once becomes a list, in order. No prototype. */
export const parseForm = (raw: Buffer): FormFields => {
  const fields: FormFields = Object.create(null) as FormFields;
  for (const [name, value] of new URLSearchParams(raw.toString("utf8"))) {
    const seen = fields[name];
    if (seen === undefined) fields[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else fields[name] = [seen, value];
  }
  return fields;
};

export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * One named field of a JSON-object or form body, as sent (own properties only), else undefined.
 * The one reader of the key, solution, site-key and content fields.
 */
export const bodyField = (body: ParsedBody, name: string): unknown => {
  if (body.kind === "json") return isJsonObject(body.value) ? ownField(body.value, name) : undefined;
  if (body.kind === "form") return ownField(body.value, name);
  return undefined;
};

/** Reads an own property only, so `__proto__`, `constructor` and friends are never inherited. */
export const ownField = (object: object, name: string): unknown =>
  Object.prototype.hasOwnProperty.call(object, name) ? (object as Record<string, unknown>)[name] : undefined;
