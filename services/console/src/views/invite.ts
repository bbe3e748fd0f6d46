import type { Invitation } from "../clients/invitations.ts";
import { html } from "../domain/html.ts";
import { MIN_PASSWORD_LENGTH } from "../domain/password.ts";
import { bare, csrfField, messagePage } from "./layout.ts";
import { errorNotice } from "./parts.ts";

/** What the page knows of the invitation and its reader. */
export interface InviteView {
  token: string;
  invitation: Invitation;
  workspaceName: string;
  csrf: string;
  /**
   * `join`: signed in as the invited e-mail; `other`: signed in as someone else (their e-mail);
   * `sign-in`: the e-mail has an account; `new`: it has none yet.
   */
  reader: { as: "join" } | { as: "other"; email: string } | { as: "sign-in" } | { as: "new" };
  error?: string;
}

/** Every dead link's page: unknown, used, revoked and expired alike (410 Gone). */
export const INVITE_GONE_PAGE = messagePage(
  "Invitation not valid",
  "This invitation link has expired, has been used already or was revoked. Ask an owner of the site for a new one.",
);

export const invitePage = (view: InviteView) => {
  const { invitation, reader } = view;
  const action = `/console/invite/${view.token}`;
  const intro = html`<p>
    <strong>${invitation.invitedBy}</strong> invites <strong>${invitation.email}</strong> to
    <strong>${view.workspaceName}</strong> as a <strong>${invitation.role}</strong>.
  </p>`;
  const form = (body: ReturnType<typeof html>) =>
    html`<form method="post" action="${action}">${csrfField(view.csrf)} ${body}</form>`;
  const email = html`<label for="email">E-mail</label>
    <input
      id="email"
      name="email"
      type="email"
      autocomplete="username"
      readonly
      value="${invitation.email}"
    />`;
  switch (reader.as) {
    case "join":
      return bare(
        "Join a site",
        html`${errorNotice(view.error)} ${intro} ${form(html`<p><button type="submit">Join</button></p>`)}`,
      );
    case "other":
      return bare(
        "Join a site",
        html`${intro}
          <p class="notice error" role="alert">
            You are signed in as ${reader.email}. This invitation is for ${invitation.email}: sign out, then
            open the link again.
          </p>
          <form method="post" action="/console/sign-out">
            ${csrfField(view.csrf)}
            <button type="submit">Sign out</button>
          </form>`,
      );
    case "sign-in":
      return bare(
        "Join a site",
        html`${errorNotice(view.error)} ${intro}
          <p>${invitation.email} has an account: sign in to join.</p>
          ${form(
            html`${email}
              <label for="password">Password</label>
              <input id="password" name="password" type="password" autocomplete="current-password" required />
              <p><button type="submit">Sign in and join</button></p>`,
          )}`,
      );
    case "new":
      return bare(
        "Join a site",
        html`${errorNotice(view.error)} ${intro}
          <p>Choose a password for your new account (at least ${MIN_PASSWORD_LENGTH} characters).</p>
          ${form(
            html`${email}
              <label for="password">Password</label>
              <input
                id="password"
                name="password"
                type="password"
                autocomplete="new-password"
                minlength="${MIN_PASSWORD_LENGTH}"
                required
              />
              <label for="repeat">The same password again</label>
              <input id="repeat" name="repeat" type="password" autocomplete="new-password" required />
              <p><button type="submit">Create the account and join</button></p>`,
          )}`,
      );
  }
};
