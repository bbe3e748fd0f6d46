import { html } from "../domain/html.ts";
import { bare, csrfField, layout, type Frame } from "./layout.ts";
import { errorNotice, postForm } from "./parts.ts";

/** The second step of sign-in: the code from the app, or a recovery code. */
export const codePage = (state: { csrf: string; error?: string }) =>
  bare(
    "Sign in to Sift: your code",
    html`${errorNotice(state.error)}
      <form method="post" action="/console/sign-in/code">
        ${csrfField(state.csrf)}
        <label for="code">The 6-digit code from your authenticator app, or a recovery code</label>
        <input
          id="code"
          name="code"
          type="text"
          inputmode="text"
          autocomplete="one-time-code"
          required
          maxlength="40"
          autofocus
        />
        <p><button type="submit">Sign in</button></p>
      </form>
      <p><a href="/console/sign-in">Start again</a></p>`,
  );

/** Your second factor: on (with recovery codes left) and a way off, or the way to turn it on. */
export const secondFactorPage = (
  frame: Frame,
  state: {
    enabled: boolean;
    recoveryLeft: number;
    enrollment?: { secret: string; uri: string } | undefined;
    codes?: string[] | undefined;
    error?: string | undefined;
    why?: string | undefined;
  },
) =>
  layout(
    frame,
    "Second factor",
    html`${errorNotice(state.error)}
      ${state.why ? html`<p class="notice" role="status">${state.why}</p>` : null}
      ${
        state.codes
          ? html`<div class="notice" role="status">
              <p>
                <strong>A second factor is on.</strong> These recovery codes each sign you in once if the
                phone is lost. They are shown only now: keep them somewhere safe.
              </p>
              <ul class="recovery-codes">
                ${state.codes.map((c) => html`<li><code>${c}</code></li>`)}
              </ul>
              <p><a href="/console/">Go on to the console</a></p>
            </div>`
          : state.enabled
            ? html`<p>
                  A second factor is on: signing in asks for a code from your authenticator app after the
                  password. ${state.recoveryLeft} of 10 recovery codes are left.
                </p>
                ${postForm(
                  { action: "/console/account/second-factor/off", csrf: frame.csrf },
                  html`<label for="off-code">A code from the app, to turn it off</label>
                    <input
                      id="off-code"
                      name="code"
                      type="text"
                      autocomplete="one-time-code"
                      required
                      maxlength="40"
                    />
                    <p><button type="submit" class="danger">Turn the second factor off</button></p>`,
                )}`
            : state.enrollment
              ? html`<p>
                    Add this key to an authenticator app (any TOTP app: 6 digits every 30 seconds), then type
                    the code it shows.
                  </p>
                  <p>Key: <code class="secret" id="totp-secret">${state.enrollment.secret}</code></p>
                  <p class="muted">
                    Or open this address on the phone: <code class="value">${state.enrollment.uri}</code>
                  </p>
                  ${postForm(
                    { action: "/console/account/second-factor", csrf: frame.csrf },
                    html`<label for="enroll-code">The code the app shows</label>
                      <input
                        id="enroll-code"
                        name="code"
                        type="text"
                        inputmode="numeric"
                        autocomplete="one-time-code"
                        required
                        maxlength="10"
                      />
                      <p><button type="submit">Turn the second factor on</button></p>`,
                  )}`
              : null
      }
      <p><a href="/console/account">Your sessions</a></p>`,
  );
