import type { Request, Router } from "express";
import { CHALLENGE_DIFFICULTY, CHALLENGE_TTL_MS } from "@sift/contracts";
import {
  ChallengeTtlMs,
  Difficulty,
  KeyKind,
  redisLayout,
  type Configuration,
  type Keystore,
} from "@sift/keystore";
import type { RedisClient } from "@sift/runtime";
import { configPage, secretPage, sitesPage } from "../views/sites.ts";
import { NOT_FOUND_PAGE } from "../views/layout.ts";
import { field, formFields, sendPage } from "./context.ts";
import { enter, type WorkspaceDeps } from "./workspace.ts";

export interface SitesDeps extends WorkspaceDeps {
  keystore: Keystore;
  redis: RedisClient;
}

/** The workspace's configurations, oldest first. */
const configsOf = async (deps: SitesDeps, workspaceId: string): Promise<Configuration[]> => {
  const ids = await deps.redis.smembers(redisLayout().workspaceConfigs(workspaceId));
  const configs = await Promise.all(ids.map((id) => deps.keystore.getConfig(id)));
  return configs.filter((c): c is Configuration => c !== null).sort((a, b) => a.createdAt - b.createdAt);
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

/**
 * Sites and keys: the workspace's configurations, create one (its secret shown once), reroll a
 * secret (the new one shown once, the old one refused at once), a challenge's difficulty, life and
 * adaptive mode, and the snippet that puts it on a site.
 */
export const siteRoutes = (router: Router, deps: SitesDeps): void => {
  router.get("/console/w/:workspace/sites", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "read");
    if (!place) return;
    sendPage(res, 200, sitesPage(place, await configsOf(deps, place.workspace.id)));
  });

  router.post("/console/w/:workspace/sites", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const kind = KeyKind.safeParse(field(formFields(req), "kind"));
    if (!kind.success) {
      const configs = await configsOf(deps, place.workspace.id);
      return sendPage(res, 400, sitesPage(place, configs, "Choose classify or challenge."));
    }
    const created = await deps.keystore.createConfig(place.workspace.id, kind.data);
    if (!created) return sendPage(res, 404, NOT_FOUND_PAGE);
    await place.record("config.create", `${created.config.id} (${kind.data})`);
    sendPage(res, 201, secretPage(place, created.config, created.secretKey, "created"));
  });

  router.get("/console/w/:workspace/sites/:config", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "read");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    if (!config) return sendPage(res, 404, NOT_FOUND_PAGE);
    sendPage(res, 200, configPage(place, config, publicOrigin(req)));
  });

  router.post("/console/w/:workspace/sites/:config/reroll", async (req, res) => {
    const place = await enter(deps, req, res, "sites", "edit");
    if (!place) return;
    const config = await configIn(deps, req, place.workspace.id);
    const secret = config ? await deps.keystore.reroll(config.id) : null;
    if (!config || !secret) return sendPage(res, 404, NOT_FOUND_PAGE);
    await place.record("config.reroll", config.id);
    sendPage(res, 200, secretPage(place, config, secret, "rerolled"));
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
    await deps.keystore.updateConfig(config.id, {
      difficulty: difficulty.data,
      challengeTtlMs: life.data,
      adaptive,
    });
    await place.record(
      "config.settings",
      `${config.id}: difficulty ${difficulty.data}, life ${life.data / 1000} s, adaptive ${adaptive ? "on" : "off"}`,
    );
    res.redirect(303, `/console/w/${place.workspace.id}/sites/${config.id}`);
  });
};
