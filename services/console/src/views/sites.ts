import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "@sift/contracts";
import { CONFIG_NAME_MAX, type Configuration } from "@sift/keystore";
import type { Paged, TableQuery } from "../domain/table.ts";
import { SITES_TABLE, type SitesSort } from "../domain/table-specs.ts";
import { html } from "../domain/html.ts";
import type { Place } from "../routes/workspace.ts";
import { allows } from "../domain/roles.ts";
import { layout } from "./layout.ts";
import { errorNotice, field, postForm, select } from "./parts.ts";
import { dataTable } from "./table.ts";

const date = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";

export const sitesPage = (
  place: Place,
  table: { query: TableQuery<SitesSort>; paged: Paged<Configuration> },
  error?: string,
) => {
  const base = `/console/w/${place.workspace.id}/sites`;
  const canEdit = allows(place.role, "edit");
  return layout(
    place.frame,
    "Keys",
    html`${errorNotice(error)}
    ${dataTable({
      id: "configs",
      base,
      spec: SITES_TABLE,
      ...table,
      caption: html`Configurations of ${place.workspace.name}`,
      filterLabel: "Search configurations",
      columns: [
        {
          head: "Name",
          sort: "name",
          cell: (c) =>
            c.name ? html`<a href="${base}/${c.id}">${c.name}</a>` : html`<span class="muted">unnamed</span>`,
        },
        { head: "Configuration", sort: "id", cell: (c) => html`<a href="${base}/${c.id}">${c.id}</a>` },
        { head: "Kind", sort: "kind", cell: (c) => c.kind },
        {
          head: "Site key",
          cell: (c) => (c.siteKey ? html`<code>${c.siteKey}</code>` : html`<span class="muted">none</span>`),
        },
        { head: "Created", sort: "created", cell: (c) => date(c.createdAt) },
      ],
      empty: `No configuration yet. ${canEdit ? "Create one below: a classify key for your server, or a challenge for your forms." : "An editor or owner can create one."}`,
    })}
    ${
      canEdit
        ? postForm(
            { action: base, csrf: place.frame.csrf, inline: true },
            html`${field("kind", "Kind", select("kind", "kind", ["classify", "challenge"]))}
              ${field(
                "config-name",
                "Name (optional)",
                html`<input id="config-name" name="name" type="text" maxlength="${CONFIG_NAME_MAX}" />`,
              )} <button type="submit">Create configuration</button>`,
          )
        : null
    }`,
  );
};

/** The secret's page on a reload, or once its note has expired: it is never shown twice. */
export const alreadyShownPage = (place: Place, config: Configuration) =>
  layout(
    place.frame,
    "Secret already shown",
    html`<p class="notice" role="status">
        The secret of <strong>${config.name ?? config.id}</strong> was shown once and is not stored anywhere
        Sift can read it back. If it was not copied, rotate it: a new secret replaces it.
      </p>
      <p>
        <a href="/console/w/${place.workspace.id}/sites/${config.id}"
          >Settings and integration of ${config.id}</a
        >
      </p>`,
  );

/** The graces the console offers (POST /v1/configurations/{id}/rotate-secret takes any 0-86,400 s). */
export const ROTATE_GRACES = [
  [0, "no time: refuse it at once"],
  [3600, "1 hour"],
  [86_400, "24 hours"],
] as const;

/** What became of the secret a rotation replaced: refused at once, or kept until its grace ends (set only with one). */
const previousNote = (until: string | undefined): string =>
  until
    ? ` The previous secret keeps working until ${until.slice(0, 16).replace("T", " ")} UTC, then is refused.`
    : " The previous secret is already refused.";

/** The page that shows a secret, the only time it is ever shown. */
export const secretPage = (
  place: Place,
  config: Configuration,
  secret: string,
  what: "created" | "rotated",
  previousValidUntil?: string,
) =>
  layout(
    place.frame,
    what === "created" ? "Configuration created" : "Secret rotated",
    html`<div class="notice" role="status">
        <p>
          The secret key of <strong>${config.name ? `${config.name} (${config.id})` : config.id}</strong> is
          shown here once and never again: copy it now into your server's
          configuration.${what === "rotated" ? previousNote(previousValidUntil) : ""}
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
      <p>
        ${config.name ? html`Name: <strong>${config.name}</strong>. ` : null}Kind:
        <strong>${config.kind}</strong>. Created ${date(config.createdAt)}.
      </p>
      ${
        canEdit
          ? postForm(
              { action: `${base}/rename`, csrf: place.frame.csrf, inline: true },
              html`${field(
                  "rename",
                  "Name",
                  html`<input
                    id="rename"
                    name="name"
                    type="text"
                    required
                    maxlength="${CONFIG_NAME_MAX}"
                    value="${config.name ?? ""}"
                  />`,
                )} <button type="submit" class="secondary">Rename</button>`,
            )
          : null
      }
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
              )}
              <h2>Allowed hostnames</h2>
              ${postForm(
                { action: `${base}/hostnames`, csrf: place.frame.csrf },
                html`<p>
                    Pages on these hosts get a challenge; a page elsewhere is refused with a sentence naming
                    its host. One per line: <code>shop.example.com</code>, or <code>*.example.com</code> for
                    any subdomain (not the apex). Empty: any host.
                  </p>
                  <label for="hostnames">Hostnames</label>
                  <textarea id="hostnames" name="hostnames" rows="4" cols="40" ${disabled}>
${(config.hostnames ?? []).join("\n")}</textarea>
                  ${canEdit ? html`<p><button type="submit">Save hostnames</button></p>` : null}`,
              )}`
          : null
      }
      ${
        canEdit
          ? html`<h2>Secret key</h2>
              ${postForm(
                { action: `${base}/rotate`, csrf: place.frame.csrf },
                html`<p>
                    A new secret replaces the current one, which is refused from that moment unless you give
                    your servers time to switch.
                  </p>
                  <div>
                    <label for="grace">Keep the current secret working for</label>
                    <select id="grace" name="grace">
                      ${ROTATE_GRACES.map(([seconds, label]) => html`<option value="${String(seconds)}">${label}</option>`)}
                    </select>
                  </div>
                  <button type="submit" class="danger">Rotate the secret</button>`,
              )}`
          : null
      }`,
  );
};
