import type { Workspace } from "@sift/keystore";
import { html } from "../domain/html.ts";
import type { Visitor } from "../routes/context.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, postForm, textInput } from "./parts.ts";
import { dataTable } from "./table.ts";
import { WORKSPACES_TABLE, type WorkspacesSort } from "../domain/table-specs.ts";
import type { Paged, TableQuery } from "../domain/table.ts";
import { operatorWorkspaces, type WorkspaceSearchPage } from "./operator-home.ts";

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The start page: a member's workspaces as a sortable table (their memberships), an operator's
 * as a server-side search of the deployment's directory (operator-home.ts).
 */
export const homePage = (
  visitor: Visitor,
  list:
    | {
        kind: "member";
        workspaces: Workspace[];
        table: { query: TableQuery<WorkspacesSort>; paged: Paged<Workspace> };
      }
    | { kind: "operator"; page: WorkspaceSearchPage },
  error?: string,
) => {
  const workspaces = list.kind === "member" ? list.workspaces : [];
  const table = list.kind === "member" ? list.table : undefined;
  return layout(
    {
      email: visitor.user.email,
      csrf: visitor.session.csrf,
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
      search: visitor.user.operator,
    },
    "Sites",
    html`${errorNotice(error)}
      ${
        list.kind === "operator"
          ? operatorWorkspaces(list.page)
          : workspaces.length === 0 || !table
            ? html`<p class="empty">
                ${
                  visitor.user.operator
                    ? "No site yet. Create the first one below."
                    : "You are not a member of any site yet. Ask a site's owner or an operator to add you."
                }
              </p>`
            : dataTable({
                id: "workspaces",
                base: "/console/",
                spec: WORKSPACES_TABLE,
                ...table,
                caption: visitor.user.operator ? "Every site of this deployment" : "Your sites",
                filterLabel: "Search sites",
                columns: [
                  {
                    head: "Name",
                    sort: "name",
                    cell: (w) => html`<a href="/console/w/${w.id}/sites">${w.name}</a>`,
                  },
                  { head: "Plan", sort: "plan", cell: (w) => w.plan },
                  { head: "Classify", cell: (w) => (w.classify ? "on" : "off") },
                  { head: "Id", cell: (w) => html`<code>${w.id}</code>` },
                  { head: "Created", sort: "created", cell: (w) => day(w.createdAt) },
                  ...(visitor.user.operator
                    ? [
                        {
                          head: "Operator",
                          cell: (w: Workspace) =>
                            html`<a href="/console/w/${w.id}/usage#limits">Plan and limits</a>`,
                        },
                      ]
                    : []),
                ],
                empty: "",
              })
      }
      ${
        visitor.user.operator
          ? html`<p><a href="/console/model">The model in service</a> (version, training, comparison)</p>
              <h2>New site</h2>
              ${postForm(
                { action: "/console/workspaces", csrf: visitor.session.csrf, inline: true },
                html`${field("workspace-name", "Name", textInput("workspace-name", "name", 100))}
                  <button type="submit">Create site</button>`,
              )}`
          : null
      }
      <h2>Sessions</h2>
      ${postForm(
        { action: "/console/sign-out-everywhere", csrf: visitor.session.csrf },
        html`<button type="submit" class="secondary">Sign out everywhere</button>`,
      )}`,
  );
};
