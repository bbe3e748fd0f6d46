import { html } from "../domain/html.ts";
import { bare, csrfField } from "./layout.ts";
import { errorNotice } from "./parts.ts";

export const signInPage = (state: { csrf: string; email?: string; error?: string }) =>
  bare(
    "Sign in",
    html`${errorNotice(state.error)}
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
