import { LOG_MAX_ENTRIES, LOG_RETENTION_DAYS, PRIVACY_MODES, type WorkspaceLog } from "@sift/contracts";
import { html, type Html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { field, postForm } from "./parts.ts";

/** What each privacy mode keeps of a submission's text, in a site owner's words (docs/console.md). */
const PRIVACY_HELP: Record<WorkspaceLog["privacy"], string> = {
  full: "full: every field kept whole, encrypted with the deployment's log key",
  redacted: "redacted (default): field names and text kept, e-mail addresses, phone numbers and links masked",
  none: "none: no text at all, only the verdict, its score, reasons and fingerprint",
};

export interface LogSettingsView {
  settings: WorkspaceLog;
  /** Whether the visitor may change the settings and forget the log (owners and operators). */
  canManage: boolean;
  /** Whether the deployment has a log key, without which `full` keeps no text. */
  canSeal: boolean;
}

const summary = (s: WorkspaceLog): string =>
  s.retentionDays === 0
    ? "The log is off: no verdict is recorded, and what was kept is forgotten within the hour."
    : `Verdicts are kept ${s.retentionDays} days, at most ${s.maxEntries.toLocaleString("en")} of them; ${PRIVACY_HELP[s.privacy]}.`;

/**
 * The verdict log's settings under the Submissions table: what it keeps and for how long, the
 * form that changes it (as `sift workspace set --log-privacy/--log-retention-days/
 * --log-max-entries` does) and forgetting the whole log, for owners; the summary for others.
 */
export const logSettingsSection = (place: Place, view: LogSettingsView): Html => {
  const base = `/console/w/${place.workspace.id}/log`;
  const s = view.settings;
  const modes = PRIVACY_MODES.filter((m) => m !== "full" || view.canSeal || s.privacy === "full");
  return html`<section aria-labelledby="log-settings">
    <h2 id="log-settings">What the log keeps</h2>
    <p id="log-summary">${summary(s)}</p>
    ${
      s.privacy !== "full"
        ? html`<p class="muted" id="log-full-help">
            Only <strong>full</strong> keeps the sender's address and the links as written, so you can reply
            to a customer flagged by mistake and block a sender from a row.
            ${
              view.canSeal
                ? "An owner can choose it below; the text is then sealed with the deployment's log key."
                : html`It needs a log key on the deployment: whoever runs Sift sets
                    <code>SIFT_LOG_KEYS=key1:&lt;32 random bytes, base64&gt;</code> (for example from
                    <code>openssl rand -base64 32</code>) on the classify, verify and console services and
                    restarts them; full is then offered here. A local stack started with
                    <code>pnpm start</code> makes one by itself.`
            }
          </p>`
        : null
    }
    ${
      view.canManage
        ? html`${postForm(
            { action: base, csrf: place.frame.csrf },
            html`${field(
                "log-privacy",
                "Text kept",
                html`<select id="log-privacy" name="privacy" aria-describedby="log-privacy-help">
                  ${modes.map((m) => html`<option value="${m}" ${m === s.privacy ? html`selected` : null}>${m}</option>`)}
                </select>`,
              )}
              <p class="muted" id="log-privacy-help">
                ${view.canSeal ? null : html`This deployment has no log key (SIFT_LOG_KEYS), so full is not offered. `}A
                change applies to new verdicts; those kept already stay as they were stored.
              </p>
              ${field(
                "log-retention",
                `Days kept (${LOG_RETENTION_DAYS.min} to ${LOG_RETENTION_DAYS.max}; 0 turns the log off)`,
                html`<input
                  id="log-retention"
                  name="retention_days"
                  type="number"
                  required
                  min="${LOG_RETENTION_DAYS.min}"
                  max="${LOG_RETENTION_DAYS.max}"
                  step="1"
                  value="${s.retentionDays}"
                />`,
              )}
              ${field(
                "log-max",
                `Most verdicts kept (${LOG_MAX_ENTRIES.min} to ${LOG_MAX_ENTRIES.max.toLocaleString("en")})`,
                html`<input
                  id="log-max"
                  name="max_entries"
                  type="number"
                  required
                  min="${LOG_MAX_ENTRIES.min}"
                  max="${LOG_MAX_ENTRIES.max}"
                  step="1"
                  value="${s.maxEntries}"
                />`,
              )}
              <button type="submit">Save log settings</button>`,
          )}
          ${postForm(
            { action: `${base}/forget`, csrf: place.frame.csrf },
            html`<div class="check">
                <input id="log-forget-confirm" name="confirm" type="checkbox" value="yes" required />
                <label for="log-forget-confirm"
                  >Forget every verdict kept for ${place.workspace.name} now; this cannot be undone</label
                >
              </div>
              <button type="submit" class="danger">Forget the log</button>`,
          )}`
        : null
    }
  </section>`;
};
