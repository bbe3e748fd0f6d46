import type { Request, Router } from "express";
import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS, HOSTNAMES_MAX, Hostname, Hostnames } from "@sift/contracts";
import {
  ChallengeTtlMs,
  CONFIG_NAME_MAX,
  Difficulty,
  KeyKind,
  redisLayout,
  type Configuration,
  type Keystore,
} from "@sift/keystore";
import { queryFields, type RedisClient } from "@sift/runtime";
import type { SecretFlash } from "../clients/flash.ts";
import { parseTableQuery, tablePage } from "../domain/table.ts";
import { SITES_TABLE, type SitesSort } from "../domain/table-specs.ts";
import { alreadyShownPage, configPage, ROTATE_GRACES, secretPage, sitesPage } from "../views/sites.ts";
import { layout, NOT_FOUND_PAGE } from "../views/layout.ts";
import { confirmForm } from "../views/parts.ts";
import { field, formFields, parseCookies, SESSION_COOKIE, sendPage } from "./context.ts";
import { enter, type Place, type WorkspaceDeps } from "./workspace.ts";
import {
  createConfiguration,
  rotateSecret,
  updateConfiguration,
  type OperationDeps,
  type Outcome,
} from "@sift/operations";

export interface SitesDeps extends WorkspaceDeps {
  keystore: Keystore;
  /** The changes /v1 and the CLI make too: the same checks, audit entries and webhooks. */
  operations: OperationDeps;
  redis: RedisClient;
  flash: SecretFlash;
}

/** The workspace's configurations, oldest first. */
const configsOf = async (deps: SitesDeps, workspaceId: string): Promise<Configuration[]> => {
  const ids = await deps.redis.smembers(redisLayout().workspaceConfigs(workspaceId));
  const configs = await Promise.all(ids.map((id) => deps.keystore.getConfig(id)));
  return configs.filter((c): c is Configuration => c !== null).sort((a, b) => a.createdAt - b.createdAt);
};

const sitesTable = async (deps: SitesDeps, req: Request, place: Place) => {
  const query = parseTableQuery<SitesSort>(queryFields(req), SITES_TABLE);
  const paged = tablePage(await configsOf(deps, place.workspace.id), query, {
    keys: {
      name: (c) => (c.name ?? "").toLowerCase(),
      id: (c) => c.id,
      kind: (c) => c.kind,
      created: (c) => c.createdAt,
    },
    texts: (c) => [c.name, c.id, c.kind, c.siteKey],
  });
  return { query, paged };
};

/** The session a request came with: its id and the cookie's token (which seals its secret notes). */
const sessionOf = (req: Request, place: Place) => ({
  id: place.visitor.session.id,
  token: parseCookies(req.headers.cookie)[SESSION_COOKIE] ?? "",
});

/** A configuration name as typed: trimmed, 1 to CONFIG_NAME_MAX characters, or null. */
const configName = (text: string): string | null => {
  const name = text.trim().replace(/\s+/g, " ");
  return name.length > 0 && name.length <= CONFIG_NAME_MAX ? name : null;
};

/** The configuration named by the URL when it belongs to the workspace named by the URL. */
const configIn = async (
  deps: SitesDeps,
  req: Request,
  workspaceId: string,
): Promise<Configuration | null> => {
  const config = await deps.keystore.getConfig(req.params["config"] as string);
  return config && config.workspaceId === workspaceId ? config : null;
};

/** Where the page was reached: the gateway's origin, for the integration snippets. */
const publicOrigin = (req: Request): string => {
  const tls = String(req.headers["x-forwarded-proto"] ?? "").includes("https");
  return `${tls ? "https" : "http"}://${req.headers.host ?? "localhost:8080"}`;
};

const SECONDS = /^\d{1,7}$/;

/** configuration.update, as PATCH /v1/configurations/{id}; false when the configuration is gone. */
const changed = async (
  deps: SitesDeps,
  place: Place,
  config: Configuration,
  patch: Record<string, unknown>,
): Promise<boolean> => {
  const outcome: Outcome<unknown> = await updateConfiguration(deps.operations, place.actor, config.id, patch);
  if (outcome.ok) return true;
  if (outcome.code === "not_found") return false;
  // The form parsed the same bounds already: a refusal here is a bug, not the visitor's mistake.
  throw new Error(`configuration.update refused a checked form: ${outcome.message}`);
};

/**
 * Keys: the site's configurations (a table: sort, filter, pages), create one (its
 * secret shown once), rename one, rotate a secret (the new one shown once, the old one refused at
 * once), a challenge's difficulty, life and adaptive mode, and the snippet that puts it on a site.
 * A new secret is never the answer to the POST: it goes through the session's flash to a GET
 * page (POST, 303, GET), so a reload shows "already shown" and rolls nothing.
 */
export const siteRoutes = (router: Router, deps: SitesDeps): void => {
  router.get("/console/w/:workspace/sites", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "read");
    if (!place) return;
    sendPage(res, 200, sitesPage(place, await sitesTable(deps, req, place)));
  });

  router.post("/console/w/:workspace/sites", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const fields = formFields(req);
    const kind = KeyKind.safeParse(field(fields, "kind"));
    const nameText = field(fields, "name");
    const name = nameText.trim() === "" ? undefined : configName(nameText);
    if (!kind.success || name === null) {
      const problem = !kind.success
        ? "Choose classify or challenge."
        : `A name is 1 to ${CONFIG_NAME_MAX} characters.`;
      return sendPage(res, 400, sitesPage(place, await sitesTable(deps, req, place), problem));
    }
    const outcome = await createConfiguration(deps.operations, place.actor, place.workspace.id, {
      kind: kind.data,
      ...(name ? { name } : {}),
    });
    if (!outcome.ok) return sendPage(res, 404, NOT_FOUND_PAGE);
    const created = outcome.value;
    await deps.flash.put(sessionOf(req, place), created.id, { secret: created.secretKey, what: "created" });
    res.redirect(303, `/console/w/${place.workspace.id}/sites/${created.id}/secret`);
  });

  // Where a new or rotated secret is shown, once: the POST left it in the session's flash.
  router.get("/console/w/:workspace/sites/:config/secret", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "read");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    const note = await deps.flash.take(sessionOf(req, place), config.id);
    if (!note) return sendPage(res, 200, alreadyShownPage(place, config));
    sendPage(res, 200, secretPage(place, config, note.secret, note.what, note.previousValidUntil));
  });

  router.post("/console/w/:workspace/sites/:config/rename", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    const name = configName(field(formFields(req), "name"));
    if (name === null) {
      const problem = `A name is 1 to ${CONFIG_NAME_MAX} characters.`;
      return sendPage(res, 400, configPage(place, config, publicOrigin(req), problem));
    }
    if (!(await changed(deps, place, config, { name }))) return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${place.workspace.id}/sites/${config.id}`);
  });

  router.get("/console/w/:workspace/sites/:config", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "read");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    sendPage(res, 200, configPage(place, config, publicOrigin(req)));
  });

  router.post("/console/w/:workspace/sites/:config/rotate", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    const fields = formFields(req);
    const graceText = field(fields, "grace") || "0";
    const grace = ROTATE_GRACES.find(([seconds]) => String(seconds) === graceText);
    if (!grace)
      return sendPage(
        res,
        400,
        configPage(place, config, publicOrigin(req), "Choose how long the old secret works."),
      );
    // A secret refused at once breaks every server using it: ask first (a page, so without JavaScript too).
    if (field(fields, "confirm") !== "yes") {
      const name = config.name ? `${config.name} (${config.id})` : config.id;
      const consequence =
        grace[0] === 0
          ? "The current secret is refused from that moment: every server using it fails until it has the new one."
          : `The current secret keeps working for ${grace[1]}, then is refused: every server needs the new one by then.`;
      return sendPage(
        res,
        200,
        layout(
          place.frame,
          "Rotate the secret?",
          confirmForm({
            action: `/console/w/${place.workspace.id}/sites/${config.id}/rotate`,
            csrf: place.frame.csrf,
            question: `Rotate the secret of ${name}? ${consequence}`,
            fields: [["grace", graceText]],
            button: "Rotate now",
            cancel: `/console/w/${place.workspace.id}/sites/${config.id}`,
          }),
        ),
      );
    }
    // configuration.rotate, as POST /v1/configurations/{id}/rotate-secret: secret.rotated raised.
    const rotated = await rotateSecret(deps.operations, place.actor, config.id, { graceSeconds: grace[0] });
    if (!rotated.ok) return sendPage(res, 404, NOT_FOUND_PAGE);
    const { secretKey, previousValidUntil } = rotated.value;
    await deps.flash.put(sessionOf(req, place), config.id, {
      secret: secretKey,
      what: "rotated",
      ...(grace[0] === 0 ? {} : { previousValidUntil }),
    });
    res.redirect(303, `/console/w/${place.workspace.id}/sites/${config.id}/secret`);
  });

  router.post("/console/w/:workspace/sites/:config/hostnames", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    const origin = publicOrigin(req);
    if (config.kind !== "challenge")
      return sendPage(
        res,
        400,
        configPage(place, config, origin, "Only a challenge configuration has hostnames."),
      );
    const listed = field(formFields(req), "hostnames")
      .split(/[\s,]+/)
      .filter((h) => h.length > 0);
    const hostnames = Hostnames.safeParse(listed);
    if (!hostnames.success) {
      const bad = listed.find((h) => !Hostname.safeParse(h).success);
      const problem = bad
        ? `“${bad}” is not a host name: write shop.example.com, or *.example.com for its subdomains.`
        : `At most ${HOSTNAMES_MAX} hostnames.`;
      return sendPage(res, 400, configPage(place, config, origin, problem));
    }
    if (!(await changed(deps, place, config, { hostnames: hostnames.data })))
      return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${place.workspace.id}/sites/${config.id}`);
  });

  router.post("/console/w/:workspace/sites/:config", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    if (config.kind !== "challenge")
      return sendPage(
        res,
        400,
        configPage(place, config, publicOrigin(req), "Only a challenge configuration has settings."),
      );
    const fields = formFields(req);
    const difficulty = Difficulty.safeParse(Number(field(fields, "difficulty")));
    const lifeText = field(fields, "life");
    const life = ChallengeTtlMs.safeParse(SECONDS.test(lifeText) ? Number(lifeText) * 1000 : Number.NaN);
    if (!difficulty.success || !life.success) {
      const problem =
        `Difficulty is ${CHALLENGE_DIFFICULTY.min} to ${CHALLENGE_DIFFICULTY.max} bits; ` +
        `life is ${CHALLENGE_TTL_MS.min / 1000} to ${CHALLENGE_TTL_MS.max / 1000} seconds.`;
      return sendPage(res, 400, configPage(place, config, publicOrigin(req), problem));
    }
    const adaptive = field(fields, "adaptive") === "on";
    const settings = { difficulty: difficulty.data, challengeTtlSeconds: life.data / 1000, adaptive };
    if (!(await changed(deps, place, config, settings))) return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${place.workspace.id}/sites/${config.id}`);
  });
};
