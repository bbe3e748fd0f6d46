import type { FormSource } from "./form.ts";

/**
 * The widget markup of the captchas a page may already carry, and the field each one posts: a
 * page moves to Sift by pointing its script tag at Sift (docs/integrations.md), its markup and
 * its server's field name unchanged. `data-sitekey` is then a Sift site key.
 */
export const WIDGETS = [
  { selector: ".cf-turnstile", field: "cf-turnstile-response" },
  { selector: ".g-recaptcha", field: "g-recaptcha-response" },
  { selector: ".h-captcha", field: "h-captcha-response" },
  { selector: ".frc-captcha", field: "frc-captcha-response" },
] as const;

/** A widget element with a site key, inside a form: where its challenge comes from. */
export const widgetSource = (
  element: Element,
  field: string,
  scriptOrigin: string,
): { form: HTMLFormElement; source: FormSource } | null => {
  const form = element.closest("form");
  const siteKey = element.getAttribute("data-sitekey");
  if (!form || !siteKey) return null;
  // The vendors' `data-callback` names a global function given the token once solved.
  const callback = element.getAttribute("data-callback");
  const named = callback ? (window as unknown as Record<string, unknown>)[callback] : undefined;
  return {
    form,
    source: {
      siteKey,
      url: element.getAttribute("data-sift-url") ?? form.getAttribute("data-sift-url") ?? scriptOrigin,
      alsoFill: field,
      ...(typeof named === "function" ? { onSolved: (solution: string) => void named(solution) } : {}),
    },
  };
};
