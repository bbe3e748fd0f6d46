import { LANGUAGES_MAX, STRICTNESS_MODES, type Strictness, type WorkspaceView } from "@sift/contracts";
import { html } from "../domain/html.ts";
import { allows } from "../domain/roles.ts";
import type { Place } from "../routes/workspace.ts";
import { deleteSiteSection } from "./delete-site.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, postForm } from "./parts.ts";

/** What each strictness means to a site owner: its target share of clean messages flagged. */
export const STRICTNESS_HELP: Record<Strictness, string> = {
  relaxed: "relaxed: about 0.3 % of clean messages flagged, more spam let through",
  balanced: "balanced (default): about 1 % of clean messages flagged",
  strict: "strict: catches more spam, about 3 % of clean messages flagged",
};

/** The settings as a form shows them (what was typed, when a save was refused). */
export interface SettingsForm {
  name: string;
  strictness: string;
  shareReports: boolean;
  network: boolean;
  languages: string;
}

export const settingsForm = (view: WorkspaceView): SettingsForm => ({
  name: view.name,
  strictness: view.strictness,
  shareReports: view.shareReports,
  network: view.network,
  languages: view.languages.join(", "),
});

const onOff = (id: string, name: string, on: boolean, describedBy: string) =>
  html`<select id="${id}" name="${name}" aria-describedby="${describedBy}">
    <option value="on" ${on ? html`selected` : null}>on</option>
    <option value="off" ${on ? null : html`selected`}>off</option>
  </select>`;

const editable = (place: Place, view: WorkspaceView, form: SettingsForm) =>
  postForm(
    { action: `/console/w/${place.workspace.id}/settings`, csrf: place.frame.csrf },
    html`${field(
        "name",
        "Site name",
        html`<input id="name" name="name" type="text" required maxlength="100" value="${form.name}" />`,
      )}
      ${field(
        "strictness",
        "Strictness",
        html`<select id="strictness" name="strictness" aria-describedby="strictness-help">
          ${STRICTNESS_MODES.map(
            (m) => html`<option value="${m}" ${m === form.strictness ? html`selected` : null}>${m}</option>`,
          )}
        </select>`,
      )}
      <p class="muted" id="strictness-help">
        Where the spam line sits for this site alone: ${STRICTNESS_HELP[view.strictness]}. A score of 0.8 or
        more is spam in every mode; the mode moves the scores. Once you have marked 30 submissions "Not spam",
        your reports place the line for this site, never flagging more than the mode's share of them.
      </p>
      ${field("shareReports", "Share reports", onOff("shareReports", "shareReports", form.shareReports, "share-help"))}
      <p class="muted" id="share-help">${SHARING_SENTENCE}</p>
      ${field("network", "Network", onOff("network", "network", form.network, "network-help"))}
      <p class="muted" id="network-help">${NETWORK_SENTENCE}</p>
      ${field(
        "languages",
        "Languages",
        html`<input
          id="languages"
          name="languages"
          type="text"
          maxlength="200"
          value="${form.languages}"
          aria-describedby="languages-help"
        />`,
      )}
      <p class="muted" id="languages-help">${LANGUAGES_SENTENCE}</p>
      <button type="submit">Save settings</button>`,
  );

/** What sharing gives and what it never gives (DESIGN: the deployment's model learns only from sharing sites). */
const SHARING_SENTENCE =
  "When on, the submissions you report (here, marked in the review queue, through POST /feedback or Akismet's submit-spam and " +
  "submit-ham) also teach this Sift's own model and what its sharing sites learn together: only their " +
  "hashed features and your label are kept, never their text or the sender. Turning it off forgets " +
  "what was already kept of them for training.";
const NETWORK_SENTENCE =
  "When on, a message that other sites of this Sift also received counts toward its score, and this " +
  "site's messages count for them: only keyed hashes and counts are shared, never text, addresses or " +
  "which sites.";
const LANGUAGES_SENTENCE =
  `The languages your visitors write, as two-letter codes (e.g. "es, en"; at most ${LANGUAGES_MAX}). ` +
  "Leave it empty to have them learned from the submissions you mark not spam. " +
  "A message in another language is one more hint, weighed by your own reports, never a verdict on its own.";

/**
 * `feedback.forget`, as `DELETE /v1/workspaces/{id}/reports` and `sift feedback forget`: an
 * owner's, confirmed, since it cannot be undone.
 */
const forgetReports = (place: Place) =>
  html`<section aria-labelledby="forget-reports-title">
    <h2 id="forget-reports-title">Forget the reports</h2>
    <p class="muted">
      What this site's reports taught its own verdicts (words, near-copies, where the line sits) and what was
      kept of them for this Sift's own model. Verdicts then score as for a new site until new reports come in;
      the block and allow lists stay.
    </p>
    ${postForm(
      { action: `/console/w/${place.workspace.id}/reports/forget`, csrf: place.frame.csrf },
      html`<div class="check">
          <input id="reports-forget-confirm" name="confirm" type="checkbox" value="yes" required />
          <label for="reports-forget-confirm"
            >Forget what ${place.workspace.name}'s reports taught, now; this cannot be undone</label
          >
        </div>
        <button type="submit" class="danger">Forget the reports</button>`,
    )}
  </section>`;

const readOnly = (view: WorkspaceView) =>
  html`<dl>
      <dt>Site name</dt>
      <dd>${view.name}</dd>
      <dt>Strictness</dt>
      <dd>${view.strictness}</dd>
      <dt>Share reports</dt>
      <dd>${view.shareReports ? "on" : "off"}</dd>
      <dt>Network</dt>
      <dd>${view.network ? "on" : "off"}</dd>
      <dt>Languages</dt>
      <dd>${view.languages.length > 0 ? view.languages.join(", ") : "learned from your reports"}</dd>
    </dl>
    <p class="muted">${SHARING_SENTENCE}</p>`;

/**
 * The workspace's settings (DESIGN, "workspace settings through every door"): its name and the
 * same four settings as PATCH /v1/workspaces/{id} and `sift workspace set`, one form, one save.
 */
export const settingsPage = (
  place: Place,
  view: WorkspaceView,
  options: { error?: string; form?: SettingsForm } = {},
) =>
  layout(
    place.frame,
    "Settings",
    html`${errorNotice(options.error)}
    ${allows(place.role, "edit") ? editable(place, view, options.form ?? settingsForm(view)) : readOnly(view)}
    ${allows(place.role, "manage") ? forgetReports(place) : null}
    ${place.role === "operator" ? deleteSiteSection(place) : null}`,
  );
