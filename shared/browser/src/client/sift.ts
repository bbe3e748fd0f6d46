/**
 * sift.js: the one script a site adds. Every `<form data-sift-site-key=… data-sift-url=…>` gets a
 * hidden `_vendor` field filled with a solved challenge; `window.Sift` is the programmatic API.
 */
import { FormChallenge, SITE_KEY_ATTR, type FormSource } from "./form.ts";
import { WIDGETS, widgetSource } from "./widgets.ts";
import { ChallengeError, runChallenge } from "./run.ts";

const attached = new WeakMap<HTMLFormElement, FormChallenge>();

/**
 * Where this script was served from: the Sift a vendor widget's markup talks to when it names no
 * `data-sift-url` (the page changed only its script tag). Read while the script first runs.
 */
const scriptOrigin = (() => {
  const src = document.currentScript instanceof HTMLScriptElement ? document.currentScript.src : "";
  try {
    return src ? new URL(src).origin : "";
  } catch {
    return "";
  }
})();

/** Attaches to one form (idempotent); returns its controller. */
const attach = (form: HTMLFormElement, source?: FormSource): FormChallenge => {
  let controller = attached.get(form);
  if (!controller) {
    controller = new FormChallenge(form, source);
    attached.set(form, controller);
  }
  return controller;
};

/**
 * Attaches to every marked form under `root` not attached yet, and to every form holding a
 * vendor widget's markup (widgets.ts); call again after adding forms.
 */
const scan = (root: ParentNode = document): FormChallenge[] => {
  const controllers = Array.from(root.querySelectorAll<HTMLFormElement>(`form[${SITE_KEY_ATTR}]`), (form) =>
    attach(form),
  );
  for (const { selector, field } of WIDGETS) {
    for (const element of Array.from(root.querySelectorAll(selector))) {
      const found = widgetSource(element, field, scriptOrigin);
      if (found) controllers.push(attach(found.form, found.source));
    }
  }
  return controllers;
};

/**
 * For single-page apps: `await Sift.solve({ siteKey, url })` resolves to a `_vendor` value, or
 * `await Sift.solve(form)` for a marked form. Rejects with an Error whose `detail` matches the
 * `vendor-challenge-error` event's.
 */
const solve = async (target: HTMLFormElement | { siteKey: string; url: string }): Promise<string> => {
  if (target instanceof HTMLFormElement) return attach(target).solve();

  return (await runChallenge(target.siteKey, target.url)).solution;
};

const api = { solve, attach, scan, ChallengeError, version: "1" };
declare global {
  interface Window {
    Sift?: typeof api;
  }
}
window.Sift = api;

if (document.readyState === "loading")
  document.addEventListener("DOMContentLoaded", () => scan(), { once: true });
else scan();
