import type { Workspace } from "@sift/keystore";
import { html } from "../domain/html.ts";
import type { Visitor } from "../routes/context.ts";
import { csrfField, layout } from "./layout.ts";

export const homePage = (visitor: Visitor, workspaces: Workspace[], error?: string) =>
  layout(
    {
      email: visitor.user.email,
      csrf: visitor.session.csrf,
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
    },
    "Workspaces",
    html`${error ? html`<p class="notice error" role="alert">${error}</p>` : null}
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
              <form class="inline" method="post" action="/console/workspaces">
                ${csrfField(visitor.session.csrf)}
                <div>
                  <label for="workspace-name">Name</label>
                  <input id="workspace-name" name="name" type="text" required maxlength="100" />
                </div>
                <button type="submit">Create workspace</button>
              </form>`
          : null
      }
      <h2>Sessions</h2>
      <form method="post" action="/console/sign-out-everywhere">
        ${csrfField(visitor.session.csrf)}
        <button type="submit" class="secondary">Sign out everywhere</button>
      </form>`,
  );
