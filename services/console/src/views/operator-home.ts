import type { Workspace } from "@sift/keystore";
import { html } from "../domain/html.ts";

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One page of an operator's workspace search: the rows, what was searched, and where the next page starts. */
export interface WorkspaceSearchPage {
  rows: Workspace[];
  q: string;
  /** The cursor of the next page (the directory's), or null on the last one. */
  next: string | null;
  /** Whether this is a later page (a "first page" link is shown). */
  later: boolean;
}

/**
 * An operator's workspaces, searched and paged on the server (DESIGN, "many sites"): a page of
 * 50 from the workspace directory by name start or exact id, with a link to the next page,
 * never the deployment's whole list.
 */
export const operatorWorkspaces = (page: WorkspaceSearchPage) =>
  html`<form class="filter" method="get" action="/console/" role="search">
      <label for="workspaces-q">Search sites</label>
      <input
        id="workspaces-q"
        type="search"
        name="q"
        value="${page.q}"
        maxlength="100"
        placeholder="Name start or ws_… id"
      />
      <button type="submit">Search</button>
    </form>
    ${
      page.rows.length === 0
        ? html`<p class="empty">
            ${page.q ? html`No site name starts with “${page.q}”. <a href="/console/">Show all</a>` : "No site yet. Create the first one below."}
          </p>`
        : html`<table id="workspaces">
            <caption class="muted">
              ${page.q ? html`Sites whose name starts with “${page.q}”, by name` : "Every site of this deployment, oldest first"}
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Plan</th>
                <th scope="col">Classify</th>
                <th scope="col">Id</th>
                <th scope="col">Created</th>
                <th scope="col">Operator</th>
              </tr>
            </thead>
            <tbody>
              ${page.rows.map(
                (w) =>
                  html`<tr>
                    <td><a href="/console/w/${w.id}/sites">${w.name}</a></td>
                    <td>${w.plan}</td>
                    <td>${w.classify ? "on" : "off"}</td>
                    <td><code>${w.id}</code></td>
                    <td>${day(w.createdAt)}</td>
                    <td><a href="/console/w/${w.id}/usage#limits">Plan and limits</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <p class="pager">
      <span class="muted">${page.rows.length} shown</span>
      ${page.later ? html`<a href="/console/?q=${encodeURIComponent(page.q)}">First page</a>` : null}
      ${page.next ? html`<a rel="next" href="/console/?q=${encodeURIComponent(page.q)}&amp;after=${page.next}">Next page</a>` : null}
    </p>`;
