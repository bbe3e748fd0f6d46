import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "@sift/contracts";
import type { Configuration } from "@sift/keystore";
import { html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { allows } from "../domain/roles.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, listing, postForm, select } from "./parts.ts";

const date = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

export const sitesPage = (place: Place, configs: Configuration[], error?: string) => {
  const base = `/console/w/${place.workspace.id}/sites`;
  const canEdit = allows(place.role, "edit");
  return layout(
    place.frame,
    "Sites and keys",
    html`${errorNotice(error)}
    ${listing({
      caption: html`Configurations of ${place.workspace.name}`,
      columns: [
        { head: "Configuration", cell: (c) => html`<a href="${base}/${c.id}">${c.id}</a>` },
        { head: "Kind", cell: (c) => c.kind },
        {
          head: "Site key",
          cell: (c) => (c.siteKey ? html`<code>${c.siteKey}</code>` : html`<span class="muted">none</span>`),
        },
        { head: "Created", cell: (c) => date(c.createdAt) },
      ],
      rows: configs,
      empty: `No configuration yet. ${canEdit ? "Create one below: a classify key for your server, or a challenge for your forms." : "An editor or owner can create one."}`,
    })}
    ${
      canEdit
        ? postForm(
            { action: base, csrf: place.frame.csrf, inline: true },
            html`${field("kind", "Kind", select("kind", "kind", ["classify", "challenge"]))}
              <button type="submit">Create configuration</button>`,
          )
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
  const disabled = canEdit ? null : html`disabled`;
  /** A setting's number input (its id is its name), read-only for a viewer. */
  const numberInput = (name: string, range: { min: number; max: number }, value: number) =>
    html`<input
      id="${name}"
      name="${name}"
      type="number"
      min="${range.min}"
      max="${range.max}"
      value="${value}"
      ${disabled}
    />`;
  return layout(
    place.frame,
    `Configuration ${config.id}`,
    html`${errorNotice(error)}
      <p>Kind: <strong>${config.kind}</strong>. Created ${date(config.createdAt)}.</p>
      ${config.siteKey ? html`<p>Site key (public): <code>${config.siteKey}</code></p>` : null}
      <h2>Integration</h2>
      <pre><code>${snippet(config, origin)}</code></pre>
      ${
        config.kind === "challenge"
          ? html`<h2>Challenge settings</h2>
              ${postForm(
                { action: base, csrf: place.frame.csrf },
                html` <label for="difficulty"
                    >Difficulty (bits, ${CHALLENGE_DIFFICULTY.min}–${CHALLENGE_DIFFICULTY.max})</label
                  >
                  ${numberInput("difficulty", CHALLENGE_DIFFICULTY, difficulty)}
                  <label for="life">Challenge life (seconds)</label>
                  ${numberInput("life", { min: CHALLENGE_TTL_MS.min / 1000, max: CHALLENGE_TTL_MS.max / 1000 }, life)}
                  <label for="adaptive"
                    ><input
                      id="adaptive"
                      name="adaptive"
                      type="checkbox"
                      ${config.adaptive ? html`checked` : null}
                      ${disabled}
                    />
                    Adaptive difficulty</label
                  >
                  ${canEdit ? html`<p><button type="submit">Save settings</button></p>` : null}`,
              )}`
          : null
      }
      ${
        canEdit
          ? html`<h2>Secret key</h2>
              ${postForm(
                { action: `${base}/reroll`, csrf: place.frame.csrf },
                html`<p>A new secret replaces the current one, which is refused from that moment.</p>
                  <button type="submit" class="danger">Reroll the secret</button>`,
              )}`
          : null
      }`,
  );
};
