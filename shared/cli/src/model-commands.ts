import { readFileSync } from "node:fs";
import { SPAM_STANDARD } from "@sift/contracts";
import { trainDeploymentModel } from "@sift/learning";
import { CANARY_PATH, metaPathOf, MODEL_PATH, readModelMeta, type ModelMeta } from "@sift/model";
import { z } from "zod";
import {
  NotFound,
  parse,
  required,
  UsageError,
  type CliDeps,
  type Command,
  type ModelCliDeps,
} from "./commands.ts";

const shippedOf = (deps: ModelCliDeps): { onnx: Uint8Array; meta: ModelMeta } => {
  const path = deps.modelPath || MODEL_PATH;
  return { onnx: readFileSync(path), meta: readModelMeta(metaPathOf(path)) };
};

const modelDeps = (deps: CliDeps): ModelCliDeps => {
  if (!deps.models) throw new Error("the model commands need the deployment's Redis");
  return deps.models;
};

/** `sift model status`: DESIGN.md's `{version, source, trainedAt, reviews, candidate}`, and more. */
const status = async (deps: ModelCliDeps) => {
  const shipped = readModelMeta(metaPathOf(deps.modelPath || MODEL_PATH));
  const [serving, candidate, kept] = await Promise.all([
    deps.versions.serving(),
    deps.versions.candidate(),
    deps.examples.stats(),
  ]);
  const info = serving ? await deps.versions.info(serving) : null;
  const candidateInfo = candidate && candidate !== serving ? await deps.versions.info(candidate) : null;
  return {
    model: SPAM_STANDARD,
    version: serving ?? shipped.version,
    source: serving ? "deployment" : "shipped",
    trainedAt: info ? new Date(info.trainedAt).toISOString() : null,
    reviews: info?.reviews ?? 0,
    sites: info?.sites ?? 0,
    comparison: info?.comparison ?? null,
    candidate:
      candidateInfo === null
        ? null
        : {
            version: candidateInfo.version,
            trainedAt: new Date(candidateInfo.trainedAt).toISOString(),
            reviews: candidateInfo.reviews,
            sites: candidateInfo.sites,
            wins: candidateInfo.wins,
          },
    kept,
    shipped: shipped.version,
  };
};

export const MODEL_COMMANDS: Record<string, Command> = {
  "model status": { flags: [], run: (_flags, deps) => status(modelDeps(deps)) },
  "model train": {
    flags: ["min-new"],
    booleans: ["promote-if-wins"],
    run: async (flags, deps) => {
      const m = modelDeps(deps);
      const minNew = parse(z.coerce.number().int().min(0).max(1e9), flags["min-new"], "min-new");
      // The schedule (issue 53, off unless a deployment runs it, e.g. nightly from cron): train
      // only when enough reviews were kept since the last candidate, promote only when it wins.
      if (minNew !== undefined) {
        const last = await m.versions.candidate();
        const since = last ? ((await m.versions.info(last))?.keptEver ?? 0) : 0;
        const fresh = (await m.examples.keptEver()) - since;
        if (fresh < minNew) return { trained: false, newReviews: fresh, minNew };
      }
      const trained = await trainDeploymentModel({
        examples: m.examples,
        versions: m.versions,
        eligible: async (id) =>
          (await deps.keystore.getWorkspace(id)) !== null && (await deps.feedback.shares(id)),
        shipped: shippedOf(m),
        canaryPath: CANARY_PATH,
        now: m.now,
      });
      const promoted = flags["promote-if-wins"] === "true" && trained.comparison.wins;
      if (promoted) await m.versions.promote(trained.version);
      return {
        version: trained.version,
        comparison: trained.comparison,
        reviews: trained.info.reviews,
        sites: trained.info.sites,
        skipped: trained.info.skipped,
        untrusted: trained.untrusted,
        seconds: Math.round(trained.seconds * 10) / 10,
        ...(flags["promote-if-wins"] === "true" ? { promoted } : {}),
        ...(trained.canaryMissing ? { canaryMissing: trained.canaryMissing } : {}),
      };
    },
  },
  "model promote": {
    flags: ["version"],
    booleans: ["force"],
    run: async (flags, deps) => {
      const m = modelDeps(deps);
      const version = required(flags, "version");
      const shipped = readModelMeta(metaPathOf(m.modelPath || MODEL_PATH)).version;
      if (version === shipped) {
        await m.versions.promote(null);
        return { version, source: "shipped" };
      }
      const info = await m.versions.info(version);
      if (!info) throw new NotFound(`no model version ${version} (sift model status lists the candidate)`);
      if (!info.wins && flags["force"] !== "true")
        throw new UsageError(
          `${version} lost its comparison with the model in service; promote it with --force if you mean to`,
        );
      if (!(await m.versions.promote(version))) throw new NotFound(`no model version ${version}`);
      return { version, source: "deployment" };
    },
  },
  "model rollback": {
    flags: [],
    run: async (_flags, deps) => {
      const m = modelDeps(deps);
      const back = await m.versions.rollback();
      if (!back) throw new UsageError("nothing to roll back to: no version was promoted before");
      const shipped = readModelMeta(metaPathOf(m.modelPath || MODEL_PATH)).version;
      return { version: back.version ?? shipped, source: back.version ? "deployment" : "shipped" };
    },
  },
};
