import { html } from "../domain/html.ts";
import { bare, csrfField } from "./layout.ts";
import { errorNotice } from "./parts.ts";

/**
 * What sign-in carries back (issue 41): the page to return to, and a form whose session ended
 * before it was sent (its path and fields), to be sent again only when the person says so.
 */
export interface Return {
  next?: string | undefined;
  action?: string | undefined;
  resume?: string | undefined;
  /** What the kept form did, in words. */
  doing?: string | undefined;
}

export const signInPage = (state: { csrf: string; email?: string; error?: string; back?: Return }) =>
  bare(
    "Sign in to Sift",
    html`${errorNotice(state.error)}
      ${
        state.back?.doing
          ? html`<p class="notice" role="status">
              Your session ended before this was done: <strong>${state.back.doing}</strong>. Sign in, and you
              can finish it.
            </p>`
          : state.back?.next
            ? html`<p class="muted">Sign in to go on to the page you asked for.</p>`
            : null
      }
      <form method="post" action="/console/sign-in">
        ${csrfField(state.csrf)}
        ${state.back?.next ? html`<input type="hidden" name="next" value="${state.back.next}" />` : null}
        ${
          state.back?.action && state.back.resume !== undefined
            ? html`<input type="hidden" name="action" value="${state.back.action}" />
                <input type="hidden" name="resume" value="${state.back.resume}" />`
            : null
        }
        <label for="email">E-mail</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value="${state.email ?? ""}"
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <p><button type="submit">Sign in</button></p>
      </form>`,
  );

/** After sign-in, a form kept from the ended session: sent again only by this button. */
export const continuePage = (state: {
  csrf: string;
  action: string;
  fields: ReadonlyArray<readonly [string, string]>;
  doing: string;
  next: string;
}) =>
  bare(
    "Finish what you were doing",
    html`<p>You were signed out before this was done. It has not been done yet.</p>
      <form method="post" action="${state.action}">
        ${csrfField(state.csrf)}
        ${state.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
        <p><button type="submit" autofocus>${state.doing}</button></p>
      </form>
      <p><a href="${state.next}">Go back without doing it</a></p>`,
  );
