import type { ModelView } from "@sift/contracts";
import { html, type Html } from "../domain/html.ts";
import type { Visitor } from "../routes/context.ts";
import { layout } from "./layout.ts";

const num = (x: number | null | undefined) => (typeof x === "number" ? x.toFixed(3) : "–");
const pct = (x: number | null | undefined) => (typeof x === "number" ? `${(x * 100).toFixed(1)} %` : "–");
/** An ISO time to the minute, as the page shows times. */
const when = (iso: string) => iso.replace("T", " ").slice(0, 16) + " UTC";

/** The latest training request: its state, when it was asked, and what it trained or why it failed. */
const training = (t: NonNullable<ModelView["training"]>): Html => {
  const asked = `${t.state}, asked ${when(t.requestedAt)}`;
  return html`${asked}${t.version ? html`: <code>${t.version}</code>` : null}${t.error ? html`: ${t.error}` : null}`;
};

type Pair = NonNullable<ModelView["comparison"]>["heldOut"];

const row = (name: string, p: Pair): Html =>
  html`<tr>
    <th scope="row">${name}</th>
    <td>${p.inService.n} (${p.inService.spam} spam)</td>
    <td>${num(p.inService.auc)} → ${num(p.candidate.auc)}</td>
    <td>${num(p.inService.recall)} → ${num(p.candidate.recall)}</td>
    <td>${num(p.inService.precision)} → ${num(p.candidate.precision)}</td>
    <td>${pct(p.inService.cleanFlagged)} → ${pct(p.candidate.cleanFlagged)}</td>
  </tr>`;

/**
 * The operators' view of the model in service (issue 53): which version answers as
 * `spam-standard`, when it was trained and on what, and how it compared with the model before it
 * when it was trained. Promotion and rollback stay with `sift model` (a swap is a deployment's
 * decision, taken where its other changes are).
 */
export const modelPage = (visitor: Visitor, view: ModelView): Html =>
  layout(
    { email: visitor.user.email, csrf: visitor.session.csrf, workspaces: [] },
    "Model in service",
    html`<dl class="facts">
        <dt>Version</dt>
        <dd>
          <code>${view.version}</code>
          (${view.source === "shipped" ? "shipped with Sift" : "this deployment's own"})
        </dd>
        ${
          view.source === "deployment"
            ? html`<dt>Trained</dt>
                <dd>
                  ${view.trainedAt ? when(view.trainedAt) : "–"}, on ${view.reviews} reviews from
                  ${view.sites} sites, on top of <code>${view.shipped}</code>
                </dd>`
            : null
        }
        <dt>Reviews kept for training</dt>
        <dd>${view.kept.kept} from ${view.kept.sites} sharing sites</dd>
        <dt>Candidate</dt>
        <dd>
          ${
            view.candidate
              ? html`<code>${view.candidate.version}</code>, trained ${when(view.candidate.trainedAt)} on
                  ${view.candidate.reviews} reviews from ${view.candidate.sites} sites;
                  ${view.candidate.wins ? "won its comparison" : "lost its comparison (promotion needs --force)"}`
              : "none waiting"
          }
        </dd>
        ${
          view.training
            ? html`<dt>Training asked through /v1</dt>
                <dd>
                  ${training(view.training)}
                  ${view.training.state === "queued" ? "(sift model train --requested trains it)" : null}
                </dd>`
            : null
        }
      </dl>
      ${
        view.comparison?.heldOut
          ? html`<table>
                <caption>
                  Its comparison when trained, against
                  <code>${view.comparison.against ?? "the model then in service"}</code>
                  (before → this version, at 0.8)
                </caption>
                <thead>
                  <tr>
                    <th scope="col">set</th>
                    <th scope="col">rows</th>
                    <th scope="col">ROC AUC</th>
                    <th scope="col">recall</th>
                    <th scope="col">precision</th>
                    <th scope="col">clean flagged</th>
                  </tr>
                </thead>
                <tbody>
                  ${row("held-out reviews (each site's newest fifth)", view.comparison.heldOut)}
                  ${view.comparison.canary ? row("public canary set", view.comparison.canary) : null}
                </tbody>
              </table>
              ${
                view.comparison.losses && view.comparison.losses.length > 0
                  ? html`<p>Where it lost: ${view.comparison.losses.join("; ")}.</p>`
                  : null
              }`
          : null
      }
      <p>
        Train, promote and roll back with <code>sift model train</code>,
        <code>sift model promote --version V</code> and <code>sift model rollback</code>, or their
        <code>/v1/model</code> twins with an operator token (docs/feedback.md).
      </p>`,
  );
