import { html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { layout } from "./layout.ts";
import { errorNotice, postForm } from "./parts.ts";

/** Settings' last section for an operator: where deleting the site starts (its own page asks first). */
export const deleteSiteSection = (place: Place) =>
  html`<section aria-labelledby="delete-site-title">
    <h2 id="delete-site-title">Delete this site</h2>
    <p class="muted">Its keys stop at once; an operator's, as creating one is.</p>
    <p><a href="/console/w/${place.workspace.id}/delete">Delete this site…</a></p>
  </section>`;

/**
 * The confirmation for `workspace.delete` (as `DELETE /v1/workspaces/{id}` and `sift workspace
 * delete`): what goes, a box to tick (the form works without JavaScript) and the button.
 */
export const deleteSitePage = (place: Place, error?: string) =>
  layout(
    place.frame,
    "Settings",
    html`${errorNotice(error)}
      <section aria-labelledby="delete-confirm-title">
        <h2 id="delete-confirm-title">Delete ${place.workspace.name}</h2>
        <p>
          Every key of this site stops working at once, its configurations, usage and place in the site list
          go, and so do its verdict log, what its reports taught, its lists and settings, its webhooks, and
          its members' roles and pending invitations; it cannot be opened here any more. Its audit entries
          stay in the deployment's audit trail.
        </p>
        ${postForm(
          { action: `/console/w/${place.workspace.id}/delete`, csrf: place.frame.csrf },
          html`<div class="check">
              <input id="delete-site-confirm" name="confirm" type="checkbox" value="yes" required />
              <label for="delete-site-confirm"
                >Delete ${place.workspace.name} now; this cannot be undone</label
              >
            </div>
            <button type="submit" class="danger">Delete the site</button>
            <a href="/console/w/${place.workspace.id}/settings">Cancel</a>`,
        )}
      </section>`,
  );
