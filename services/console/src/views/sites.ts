import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "@sift/contracts";
import type { Configuration } from "@sift/keystore";
import { html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { allows } from "../domain/roles.ts";
import { csrfField, layout } from "./layout.ts";

const date = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

export const sitesPage = (place: Place, configs: Configuration[], error?: string) => {
  const base = `/console/w/${place.workspace.id}/sites`;
  const canEdit = allows(place.role, "edit");
  return layout(
    place.frame,
    "Sites and keys",
    html`${error ? html`<p class="notice error" role="alert">${error}</p>` : null}
    ${
      configs.length === 0
        ? html`<p class="empty">
            No configuration yet.
            ${canEdit ? "Create one below: a classify key for your server, or a challenge for your forms." : "An editor or owner can create one."}
          </p>`
        : html`<table>
            <caption class="muted">
              Configurations of ${place.workspace.name}
            </caption>
            <thead>
              <tr>
                <th scope="col">Configuration</th>
                <th scope="col">Kind</th>
                <th scope="col">Site key</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              ${configs.map(
                (c) =>
                  html`<tr>
                    <td><a href="${base}/${c.id}">${c.id}</a></td>
                    <td>${c.kind}</td>
                    <td>
                      ${c.siteKey ? html`<code>${c.siteKey}</code>` : html`<span class="muted">none</span>`}
                    </td>
                    <td>${date(c.createdAt)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${
      canEdit
        ? html`<form class="inline" method="post" action="${base}">
            ${csrfField(place.frame.csrf)}
            <div>
              <label for="kind">Kind</label>
              <select id="kind" name="kind">
                <option value="classify">classify</option>
                <option value="challenge">challenge</option>
              </select>
            </div>
            <button type="submit">Create configuration</button>
          </form>`
        : null
    }`,
  );
};

/** The page that shows a secret, the only time it is ever shown. */
export const secretPage = (
  place: Place,
  config: Configuration,
  secret: string,
  what: "created" | "rerolled",
) =>
  layout(
    place.frame,
    what === "created" ? "Configuration created" : "Secret rerolled",
    html`<div class="notice" role="status">
        <p>
          The secret key of <strong>${config.id}</strong> is shown here once and never again: copy it now into
          your server's configuration.${what === "rerolled" ? " The previous secret is already refused." : ""}
        </p>
        <p><code class="secret" id="secret">${secret}</code></p>
        <p><button type="button" class="secondary" data-copy="secret">Copy</button></p>
      </div>
      ${config.siteKey ? html`<p>Site key (public): <code>${config.siteKey}</code></p>` : null}
      <p>
        <a href="/console/w/${place.workspace.id}/sites/${config.id}"
          >Settings and integration of ${config.id}</a
        >
      </p>`,
  );

const snippet = (config: Configuration, origin: string): string =>
  config.kind === "challenge"
    ? `<script src="${origin}/sift.js" defer></script>\n` +
      `<form method="post" action="/contact" data-sift-site-key="${config.siteKey ?? ""}" data-sift-url="${origin}">\n  …\n</form>\n\n` +
      `# on your server, with the form's _vendor field:\n` +
      `curl -s ${origin}/verify -d "secretKey=$SIFT_SECRET&solution=$VENDOR_FIELD"`
    : `curl -s ${origin}/classify -H "Authorization: Bearer $SIFT_SECRET" -H 'Content-Type: application/json' \\\n` +
      `  -d '{"content": {"email": "ann@example.com", "message": "Hello"}, "model": "spam-standard"}'`;

export const configPage = (place: Place, config: Configuration, origin: string, error?: string) => {
  const base = `/console/w/${place.workspace.id}/sites/${config.id}`;
  const canEdit = allows(place.role, "edit");
  const difficulty = config.difficulty ?? CHALLENGE_DIFFICULTY.default;
  const life = (config.challengeTtlMs ?? CHALLENGE_TTL_MS.default) / 1000;
  return layout(
    place.frame,
    `Configuration ${config.id}`,
    html`${error ? html`<p class="notice error" role="alert">${error}</p>` : null}
      <p>Kind: <strong>${config.kind}</strong>. Created ${date(config.createdAt)}.</p>
      ${config.siteKey ? html`<p>Site key (public): <code>${config.siteKey}</code></p>` : null}
      <h2>Integration</h2>
      <pre><code>${snippet(config, origin)}</code></pre>
      ${
        config.kind === "challenge"
          ? html`<h2>Challenge settings</h2>
              <form method="post" action="${base}">
                ${csrfField(place.frame.csrf)}
                <label for="difficulty"
                  >Difficulty (bits, ${CHALLENGE_DIFFICULTY.min}–${CHALLENGE_DIFFICULTY.max})</label
                >
                <input
                  id="difficulty"
                  name="difficulty"
                  type="number"
                  min="${CHALLENGE_DIFFICULTY.min}"
                  max="${CHALLENGE_DIFFICULTY.max}"
                  value="${difficulty}"
                  ${canEdit ? null : html`disabled`}
                />
                <label for="life">Challenge life (seconds)</label>
                <input
                  id="life"
                  name="life"
                  type="number"
                  min="${CHALLENGE_TTL_MS.min / 1000}"
                  max="${CHALLENGE_TTL_MS.max / 1000}"
                  value="${life}"
                  ${canEdit ? null : html`disabled`}
                />
                <label for="adaptive"
                  ><input
                    id="adaptive"
                    name="adaptive"
                    type="checkbox"
                    ${config.adaptive ? html`checked` : null}
                    ${canEdit ? null : html`disabled`}
                  />
                  Adaptive difficulty</label
                >
                ${canEdit ? html`<p><button type="submit">Save settings</button></p>` : null}
              </form>`
          : null
      }
      ${
        canEdit
          ? html`<h2>Secret key</h2>
              <form method="post" action="${base}/reroll">
                ${csrfField(place.frame.csrf)}
                <p>A new secret replaces the current one, which is refused from that moment.</p>
                <button type="submit" class="danger">Reroll the secret</button>
              </form>`
          : null
      }`,
  );
};
