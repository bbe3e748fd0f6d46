import type { SessionSummary } from "../clients/sessions.ts";
import { html } from "../domain/html.ts";
import { summarizeUserAgent } from "../domain/user-agent.ts";
import { layout, type Frame } from "./layout.ts";
import { listing, postForm } from "./parts.ts";

const when = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

/** The button's text: ending one's own session is signing out. */
const revokeLabel = (s: SessionSummary, currentId: string): string =>
  s.id === currentId ? "Sign out" : "Revoke";

/** The signed-in user's sessions, this one marked, each with its revoke button. */
export const accountPage = (frame: Frame, sessions: SessionSummary[], currentId: string) =>
  layout(
    frame,
    "Your sessions",
    html`<p class="muted">
        Every browser signed in as ${frame.email}. Revoking a session signs that browser out at once.
      </p>
      ${listing({
        caption: "Most recently used first",
        columns: [
          {
            head: "Browser",
            cell: (s) =>
              html`${summarizeUserAgent(s.userAgent)}${
                s.id === currentId ? html` <strong class="this-session">(this session)</strong>` : null
              }`,
            className: "value",
          },
          { head: "Address", cell: (s) => s.address ?? html`<span class="muted">unknown</span>` },
          { head: "Signed in", cell: (s) => when(s.createdAt) },
          { head: "Last used", cell: (s) => when(s.lastSeenAt) },
          {
            head: html`<span class="muted">Action</span>`,
            cell: (s) =>
              postForm(
                { action: "/console/account/sessions/revoke", csrf: frame.csrf },
                html`<input type="hidden" name="session" value="${s.ref}" />
                  <button
                    type="submit"
                    class="secondary"
                    aria-label="${revokeLabel(s, currentId)} ${summarizeUserAgent(s.userAgent)}, signed in ${when(s.createdAt)}"
                  >
                    ${revokeLabel(s, currentId)}
                  </button>`,
              ),
          },
        ],
        rows: sessions,
        empty: "No session.",
      })}
      <p>
        <a href="/console/account/second-factor">Second factor</a>: a code from an app at sign-in, and
        recovery codes.
      </p>
      ${postForm(
        { action: "/console/sign-out-everywhere", csrf: frame.csrf },
        html`<button type="submit" class="danger">Sign out everywhere</button>`,
      )}`,
  );
