/** Event names; `vendor-challenge-error` is the one the public spec states (section 6). */
export const START_EVENT = "vendor-challenge-start";
export const SUCCESS_EVENT = "vendor-challenge-success";
export const ERROR_EVENT = "vendor-challenge-error";

/** `unreachable`: no answer from the service; `refused`: it answered with an error; `solver`: solving failed. */
export type ErrorReason = "unreachable" | "refused" | "solver";

export interface ErrorDetail {
  reason: ErrorReason;
  message: string;
  status?: number;
  /** A sentence for the visitor, shown in the form (this page's host is not allowed for its site key). */
  notice?: string;
}

export const dispatch = (target: EventTarget, name: string, detail: unknown): void => {
  target.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true, detail }));
};
