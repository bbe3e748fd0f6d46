import type { Response } from "express";
import type { Identity } from "@sift/contracts";
import { parseBody, parseForm, type FormFields } from "@sift/runtime";
import type { AkismetParams } from "../domain/akismet.ts";

/**
 * The parameters of an Akismet call: a POST's body read as a form whatever its Content-Type
 * says (one client sends `Content-Type: charset=utf-8`), or as JSON when it says JSON; a GET's
 * query. Anything unreadable is no parameters.
 */
export const readAkismetParams = (
  contentType: string | undefined,
  body: Buffer | undefined,
  query: FormFields,
): AkismetParams => {
  if (!body) return query;
  const parsed = parseBody(contentType, body);
  if (parsed.kind === "json") {
    if (typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) return {};
    const fields: FormFields = Object.create(null) as FormFields;
    for (const [name, value] of Object.entries(parsed.value as Record<string, unknown>)) {
      if (typeof value === "string" || typeof value === "number" || typeof value === "boolean")
        fields[name] = String(value);
      else if (Array.isArray(value)) fields[name] = value.map(String);
    }
    return fields;
  }
  return parseForm(body);
};

/**
 * What admitting an Akismet call's key gave: the key, or the answer that refuses it (akismet.ts
 * admits; akismet-account.ts's account calls take the same answer).
 */
export type Admission =
  { ok: true; key: Identity["key"] } | { ok: false; answer: (res: Response) => void | Promise<void> };
