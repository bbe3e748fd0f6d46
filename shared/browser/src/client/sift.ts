/**
 * sift.js: the one script a site adds. Every `<form data-sift-site-key=… data-sift-url=…>` gets a
 * hidden `_vendor` field filled with a solved challenge; `window.Sift` is the programmatic API.
 */
import { FormChallenge, SITE_KEY_ATTR } from "./form.ts";
import { ChallengeError, runChallenge } from "./run.ts";

const attached = new WeakMap<HTMLFormElement, FormChallenge>();

/** Attaches to one form (idempotent); returns its controller. */
const attach = (form: HTMLFormElement): FormChallenge => {
  let controller = attached.get(form);
  if (!controller) {
    controller = new FormChallenge(form);
    attached.set(form, controller);
  }
  return controller;
};

/** Attaches to every marked form under `root` not attached yet; call again after adding forms. */
const scan = (root: ParentNode = document): FormChallenge[] =>
  Array.from(root.querySelectorAll<HTMLFormElement>(`form[${SITE_KEY_ATTR}]`), attach);

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
