import { html } from "../domain/html.ts";
import { bare, csrfField } from "./layout.ts";

export const signInPage = (state: { csrf: string; email?: string; error?: string }) =>
  bare(
    "Sign in",
    html`${state.error ? html`<p class="notice error" role="alert">${state.error}</p>` : null}
      <form method="post" action="/console/sign-in">
        ${csrfField(state.csrf)}
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
