import type { Workspace } from "@sift/keystore";
import { html } from "../domain/html.ts";
import type { Visitor } from "../routes/context.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, postForm, textInput } from "./parts.ts";

export const homePage = (visitor: Visitor, workspaces: Workspace[], error?: string) =>
  layout(
    {
      email: visitor.user.email,
      csrf: visitor.session.csrf,
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
    },
    "Workspaces",
    html`${errorNotice(error)}
      ${
        workspaces.length === 0
          ? html`<p class="empty">
              ${
                visitor.user.operator
                  ? "No workspace yet. Create the first one below."
                  : "You are not a member of any workspace yet. Ask a workspace's owner or an operator to add you."
              }
            </p>`
          : html`<ul>
              ${workspaces.map((w) => html`<li><a href="/console/w/${w.id}/sites">${w.name}</a> <span class="muted">${w.plan}</span></li>`)}
            </ul>`
      }
      ${
        visitor.user.operator
          ? html`<h2>New workspace</h2>
              ${postForm(
                { action: "/console/workspaces", csrf: visitor.session.csrf, inline: true },
                html`${field("workspace-name", "Name", textInput("workspace-name", "name", 100))}
                  <button type="submit">Create workspace</button>`,
              )}`
          : null
      }
      <h2>Sessions</h2>
      ${postForm(
        { action: "/console/sign-out-everywhere", csrf: visitor.session.csrf },
        html`<button type="submit" class="secondary">Sign out everywhere</button>`,
      )}`,
  );
