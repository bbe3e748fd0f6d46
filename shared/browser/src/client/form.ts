import { dispatch, ERROR_EVENT, START_EVENT, SUCCESS_EVENT } from "./events.ts";
import { ChallengeError, runChallenge, type Solved } from "./run.ts";

export const FIELD_NAME = "_vendor";
export const SITE_KEY_ATTR = "data-sift-site-key";
export const URL_ATTR = "data-sift-url";
/**
 * `focus` (default): start on the first focus inside the form (or at once when a field of it
 * already has the focus as the script attaches); `load`: start at once.
 */
export const START_ATTR = "data-sift-start";

/** Where a form's challenge comes from when its markup is not Sift's own (widgets.ts). */
export interface FormSource {
  siteKey: string;
  url: string;
  /** A field the page already posts (`g-recaptcha-response`, …), filled with the same solution. */
  alsoFill?: string;
  /** Called with the solution, as the vendor's widget calls its `data-callback`. */
  onSolved?: (solution: string) => void;
}

/**
 * One marked form: a hidden `_vendor` field, a challenge solved ahead of time, and a submit that
 * waits for the solution. Without a solution the form is never sent (fail closed, spec 6).
 */
export class FormChallenge {
  readonly form: HTMLFormElement;
  readonly #field: HTMLInputElement;
  readonly #source: FormSource | undefined;
  readonly #vendorField: HTMLInputElement | HTMLTextAreaElement | undefined;
  #pending: Promise<Solved> | undefined;
  #solved: Solved | undefined;
  /** Set while we re-submit after solving, so our own submit handler lets it through. */
  #releasing = false;
  /** A submit waiting for the solution. */
  #held: { submitter: HTMLElement | null } | undefined;

  constructor(form: HTMLFormElement, source?: FormSource) {
    this.form = form;
    this.#source = source;
    this.#field = fieldOf(form);
    this.#vendorField = source?.alsoFill ? fieldOf(form, source.alsoFill) : undefined;
    // Capture: at the form itself capture listeners run first, before the page's own handlers.
    form.addEventListener("submit", this.#onSubmit, { capture: true });
    // A field may already have the focus (wp-login.php focuses the user name before a deferred
    // script attaches): no focusin comes for it, so that counts as the first focus.
    const focused = document.activeElement !== null && form.contains(document.activeElement);
    if (form.getAttribute(START_ATTR) === "load" || focused) void this.solve().catch(() => {});
    else form.addEventListener("focusin", () => void this.solve().catch(() => {}), { once: true });
  }

  /** The solution, solving (once, shared by concurrent callers) when none is fresh. */
  solve(): Promise<string> {
    if (this.#solved && Date.now() < this.#solved.freshUntil) return Promise.resolve(this.#solved.solution);
    this.#field.value = "";
    if (this.#vendorField) this.#vendorField.value = "";
    this.#pending ??= this.#run().finally(() => (this.#pending = undefined));
    return this.#pending.then((solved) => solved.solution);
  }

  async #run(): Promise<Solved> {
    const siteKey = this.#source?.siteKey ?? this.form.getAttribute(SITE_KEY_ATTR) ?? "";
    const baseUrl = this.#source?.url ?? this.form.getAttribute(URL_ATTR) ?? "";
    dispatch(this.form, START_EVENT, { siteKey });
    try {
      const solved = await runChallenge(siteKey, baseUrl);
      this.#solved = solved;
      this.#field.value = solved.solution;
      if (this.#vendorField) this.#vendorField.value = solved.solution;
      dispatch(this.form, SUCCESS_EVENT, { solution: solved.solution });
      this.#source?.onSolved?.(solved.solution);
      return solved;
    } catch (error) {
      this.#solved = undefined;
      const detail =
        error instanceof ChallengeError ? error.detail : { reason: "solver", message: String(error) };
      dispatch(this.form, ERROR_EVENT, detail);
      if ("notice" in detail && detail.notice) this.#showNotice(detail.notice);
      throw error;
    }
  }

  /**
   * A refusal the visitor can do nothing about but should know of (the page's host is not one
   * its site key serves): a sentence in the form, as text, rather than a form that silently
   * never sends.
   */
  #showNotice(text: string): void {
    let notice = this.form.querySelector<HTMLElement>("[data-sift-notice]");
    if (!notice) {
      notice = document.createElement("p");
      notice.setAttribute("data-sift-notice", "");
      notice.setAttribute("role", "alert");
      this.form.append(notice);
    }
    notice.textContent = `This form cannot be sent from this page. ${text}`;
  }

  #onSubmit = (event: SubmitEvent): void => {
    if (this.#releasing || (this.#solved && Date.now() < this.#solved.freshUntil && this.#field.value)) {
      // A solution verifies once: the next submit (a form a script sends without leaving the
      // page) waits for a new one. The field keeps its value: this submission reads it next.
      this.#solved = undefined;
      return;
    }
    event.preventDefault();
    // Stop other handlers (an SPA's fetch) from sending the form without a solution.
    event.stopImmediatePropagation();
    // Clicks while held only update the submitter: the form is sent once, when ready.
    const alreadyHeld = this.#held !== undefined;
    this.#held = { submitter: event.submitter };
    if (alreadyHeld) return;
    this.solve().then(
      () => {
        const held = this.#held;
        this.#held = undefined;
        this.#release(held?.submitter ?? null);
      },
      () => (this.#held = undefined), // reported as vendor-challenge-error; the form stays unsent
    );
  };

  #release(submitter: HTMLElement | null): void {
    this.#releasing = true;
    try {
      if (typeof this.form.requestSubmit === "function") {
        // requestSubmit re-runs validation and the page's submit handlers, as a click would.
        try {
          this.form.requestSubmit(submitter);
        } catch {
          // The submitter left the form meanwhile: submit without it.
          this.form.requestSubmit();
        }
      } else {
        HTMLFormElement.prototype.submit.call(this.form);
      }
    } finally {
      this.#releasing = false;
    }
  }
}

/** The form's field of that name (an input, or the textarea reCAPTCHA's markup has), else a new hidden input. */
const fieldOf = (form: HTMLFormElement, name: string = FIELD_NAME): HTMLInputElement => {
  const existing = form.querySelector<HTMLInputElement>(`input[name="${name}"], textarea[name="${name}"]`);
  if (existing) return existing;
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = name;
  form.appendChild(field);
  return field;
};
