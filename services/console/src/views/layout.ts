import { html, type Html } from "../domain/html.ts";

/**
 * htmx's settings: no inline indicator style (the CSP forbids it), no eval, 4xx pages swapped in.
 * No history cache: htmx would keep whole pages (a secret shown once, submissions) in the tab's
 * sessionStorage, and Back after signing out would show them again without asking the server.
 * With none, Back reloads the page from the server, which answers no-store pages only to a live
 * session (issue 41).
 */
const HTMX_CONFIG = JSON.stringify({
  historyCacheSize: 0,
  refreshOnHistoryMiss: true,
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  responseHandling: [
    { code: "204", swap: false },
    { code: "[2-4]..", swap: true },
    { code: "...", swap: false, error: true },
  ],
});

export interface Frame {
  email: string;
  csrf: string;
  /** The workspaces the user may open, for the switcher (a member's; none for an operator). */
  workspaces: Array<{ id: string; name: string }>;
  /** The switcher is a search (an operator's: the deployment may hold 100,000 workspaces). */
  search?: boolean;
  /** The open workspace and the screen shown (for the navigation). */
  current?: { id: string; screen: Screen; name?: string };
  /** A second skip link, past the filters to a page's rows (Submissions, Review queue). */
  skipTo?: { href: string; label: string };
}

export const SCREENS = {
  overview: "Overview",
  submissions: "Submissions",
  review: "Review queue",
  sites: "Keys",
  lists: "Lists",
  settings: "Settings",
  usage: "Usage",
  audit: "Audit log",
  members: "Members",
} as const;
export type Screen = keyof typeof SCREENS;

const document = (title: string, body: Html): Html =>
  html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="htmx-config" content="${HTMX_CONFIG}" />
        <title>${title} · Sift console</title>
        <link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/console/assets/console.css" />
        <script src="/console/assets/htmx.min.js" defer></script>
        <script src="/console/assets/console.js" defer></script>
        <script src="/console/assets/usage-chart.js" defer></script>
      </head>
      ${body}
    </html> `;

export const csrfField = (csrf: string): Html => html`<input type="hidden" name="_csrf" value="${csrf}" />`;

/**
 * A page of the signed-in console: header with the workspace switcher, left navigation, content.
 * The navigation is a `<details>` menu: on a wide screen the stylesheet keeps it open as the left
 * column (its summary hidden), on a phone it is a "Menu" that opens and closes without script.
 */
export const layout = (frame: Frame, title: string, content: Html): Html =>
  document(
    title,
    html`<body hx-boost="true">
      <a class="skip" href="#main">Skip to content</a>
      ${frame.skipTo ? html`<a class="skip" href="${frame.skipTo.href}">${frame.skipTo.label}</a>` : null}
      <header class="top">
        <a class="brand" href="/console/">Sift console</a>
        ${
          frame.workspaces.length > 0
            ? html`<form class="switcher" method="get" action="/console/switch">
                <label for="workspace-switch">Site</label>
                <select id="workspace-switch" name="workspace">
                  ${frame.workspaces.map(
                    (w) =>
                      html`<option value="${w.id}" ${w.id === frame.current?.id ? html`selected` : null}>
                        ${w.name}
                      </option>`,
                  )}
                </select>
                <button type="submit">Open</button>
              </form>`
            : frame.search
              ? html`<form class="switcher" method="get" action="/console/" role="search">
                  ${frame.current?.name ? html`<strong class="current">${frame.current.name}</strong>` : null}
                  <label for="workspace-switch">Site</label>
                  <input
                    id="workspace-switch"
                    type="search"
                    name="q"
                    maxlength="100"
                    placeholder="Name or ws_… id"
                  />
                  <button type="submit">Find</button>
                </form>`
              : null
        }
        <span class="who">${frame.email}</span>
        <a href="/console/account">Your sessions</a>
        <form method="post" action="/console/sign-out">
          ${csrfField(frame.csrf)}
          <button type="submit">Sign out</button>
        </form>
      </header>
      <div class="frame">
        ${
          frame.current
            ? html`<details class="menu">
                <summary>Menu</summary>
                <nav class="side" aria-label="Site">
                  <ul>
                    ${(Object.entries(SCREENS) as Array<[Screen, string]>).map(
                      ([screen, label]) =>
                        html`<li>
                          <a
                            href="/console/w/${frame.current!.id}/${screen}"
                            ${screen === frame.current!.screen ? html`aria-current="page"` : null}
                            >${label}</a
                          >
                        </li>`,
                    )}
                  </ul>
                </nav>
              </details>`
            : html`<details class="menu">
                <summary>Menu</summary>
                <nav class="side" aria-label="Console">
                  <ul>
                    <li><a href="/console/">Sites</a></li>
                    <li><a href="/console/account">Your sessions</a></li>
                    <li><a href="/console/account/second-factor">Second factor</a></li>
                  </ul>
                </nav>
              </details>`
        }
        <main id="main">
          <h1>${title}</h1>
          ${content}
        </main>
      </div>
    </body>`,
  );

/** A page outside the frame (sign-in, errors). */
export const bare = (title: string, content: Html): Html =>
  document(
    title,
    html`<body>
      <main id="main" class="bare">
        <h1>${title}</h1>
        ${content}
      </main>
    </body>`,
  );

export const messagePage = (title: string, message: string): Html =>
  bare(
    title,
    html`<p>${message}</p>
      <p><a href="/console/">Back to the console</a></p>`,
  );

export const NOT_FOUND_PAGE = messagePage(
  "Nothing here",
  "There is nothing at this address, or it is not yours to see.",
);
