import type { Invitation } from "../clients/invitations.ts";
import { html, type Html } from "../domain/html.ts";
import { allows, ROLES, type Role } from "../domain/roles.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, listing, postForm, select, type Column } from "./parts.ts";

export interface Member {
  id: string;
  email: string;
  role: Role;
  /** When they joined (ms), unknown for members added before it was kept. */
  since?: number;
}

const when = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** A role drop-down with the member's own role chosen. */
const roleSelect = (id: string, name: string, label: string, current: Role): Html =>
  html`<select id="${id}" name="${name}" aria-label="${label}">
    ${ROLES.map((r) => html`<option value="${r}" ${r === current ? html`selected` : null}>${r}</option>`)}
  </select>`;

export const membersPage = (
  place: Place,
  members: Member[],
  invitations: Invitation[],
  error?: string,
  status = "",
  secondFactorRequired = false,
) => {
  const base = `/console/w/${place.workspace.id}/members`;
  const canManage = allows(place.role, "manage");
  const csrf = place.frame.csrf;
  const memberColumns: Array<Column<Member>> = [
    { head: "E-mail", cell: (m: Member) => m.email, className: "value" },
    { head: "Role", cell: (m: Member) => m.role },
    {
      head: "Member since",
      cell: (m: Member) => (m.since ? when(m.since) : html`<span class="muted">—</span>`),
    },
  ];
  if (canManage)
    memberColumns.push({
      head: html`<span class="muted">Change</span>`,
      cell: (m: Member) =>
        html`<div class="row-actions">
          ${postForm(
            { action: `${base}/role`, csrf },
            html`<input type="hidden" name="user" value="${m.id}" />
              ${roleSelect(`role-${m.id}`, "role", `Role of ${m.email}`, m.role)}
              <button type="submit" class="secondary" aria-label="Change role of ${m.email}">
                Change role
              </button>`,
          )}
          ${postForm(
            { action: `${base}/remove`, csrf },
            html`<input type="hidden" name="user" value="${m.id}" />
              <button type="submit" class="secondary" aria-label="Remove ${m.email}">Remove</button>`,
          )}
        </div>`,
    });
  const inviteColumns: Array<Column<Invitation>> = [
    { head: "E-mail", cell: (v: Invitation) => v.email, className: "value" },
    { head: "Role", cell: (v: Invitation) => v.role },
    { head: "Invited by", cell: (v: Invitation) => v.invitedBy },
    { head: "Expires", cell: (v: Invitation) => when(v.expiresAt) },
  ];
  if (canManage)
    inviteColumns.push({
      head: html`<span class="muted">Action</span>`,
      cell: (v: Invitation) =>
        postForm(
          { action: `${base}/invites/revoke`, csrf },
          html`<input type="hidden" name="invite" value="${v.id}" />
            <button type="submit" class="secondary" aria-label="Revoke the invitation of ${v.email}">
              Revoke
            </button>`,
        ),
    });
  return layout(
    place.frame,
    "Members",
    html`${errorNotice(error)} ${status ? html`<p class="notice" role="status">${status}</p>` : null}
      ${
        canManage
          ? null
          : html`<p class="muted">Only an owner of this site (or an operator) changes its members.</p>`
      }
      ${listing({
        caption: html`Members of ${place.workspace.name}`,
        columns: memberColumns,
        rows: members,
        empty: `No members yet: ${place.role === "operator" ? "you manage it as an operator until you invite an owner" : "operators manage it"}.${canManage ? " Invite someone below." : ""}`,
      })}
      <h2>Second factor</h2>
      ${
        canManage
          ? postForm(
              { action: `${base}/second-factor`, csrf },
              html`<div class="check">
                  <input
                    id="second-factor-required"
                    name="required"
                    type="checkbox"
                    value="yes"
                    ${secondFactorRequired ? html`checked` : null}
                  />
                  <label for="second-factor-required"
                    >Everyone who opens this site signs in with a second factor (a code from an authenticator
                    app)</label
                  >
                </div>
                <button type="submit" class="secondary">Save</button>`,
            )
          : html`<p>
              ${
                secondFactorRequired
                  ? "Everyone who opens this site signs in with a second factor."
                  : "A second factor is up to each member."
              }
            </p>`
      }
      ${
        canManage
          ? html`<h2>Invite someone</h2>
              <p class="muted">
                The invitation is a link that works once, until it expires. Nothing is e-mailed: you are shown
                the link once, to send it yourself.
              </p>
              ${postForm(
                { action: `${base}/invite`, csrf, inline: true },
                html`${field(
                    "invite-email",
                    "E-mail",
                    html`<input id="invite-email" name="email" type="email" required maxlength="254" />`,
                  )}
                  ${field("invite-role", "Role", select("invite-role", "role", ROLES))}
                  <button type="submit">Create invitation link</button>`,
              )}`
          : null
      }
      <h2>Pending invitations</h2>
      ${listing({
        caption: "Links not used yet",
        columns: inviteColumns,
        rows: invitations,
        empty: "No pending invitation.",
      })}`,
  );
};

/** The page that shows an invitation's link, the only time it is ever shown. */
export const inviteLinkPage = (place: Place, invitation: Invitation, link: string) =>
  layout(
    place.frame,
    "Invitation created",
    html`<div class="notice" role="status">
        <p>
          Send this link to <strong>${invitation.email}</strong> yourself. It is shown here once and never
          again, works once, and expires ${when(invitation.expiresAt)}. It makes them a
          <strong>${invitation.role}</strong> of ${place.workspace.name}.
        </p>
        <p><code class="secret" id="invite-link">${link}</code></p>
        <p><button type="button" class="secondary" data-copy="invite-link">Copy</button></p>
      </div>
      <p><a href="/console/w/${place.workspace.id}/members">Back to the members</a></p>`,
  );
