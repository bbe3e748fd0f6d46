import { readFileSync } from "node:fs";
import { modelStatus, trainDeploymentModel, type ModelDeps } from "@sift/learning";
import { promoteModel, rollbackModel, trainModel } from "@sift/operations";
import { CANARY_PATH, metaPathOf, MODEL_PATH, readModelMeta, type ModelMeta } from "@sift/model";
import { z } from "zod";
import { parse, required, type CliDeps, type Command, type ModelCliDeps } from "./commands.ts";
import { actorOf, unwrap } from "./operation-commands.ts";

const shippedOf = (deps: ModelCliDeps): { onnx: Uint8Array; meta: ModelMeta } => {
  const path = deps.modelPath || MODEL_PATH;
  return { onnx: readFileSync(path), meta: readModelMeta(metaPathOf(path)) };
};

const modelDeps = (deps: CliDeps): ModelCliDeps => {
  if (!deps.models) throw new Error("the model commands need the deployment's Redis");
  return deps.models;
};

/** The shared model logic's deps (@sift/learning's service.ts), the shipped version read off the file. */
const serviceDeps = (deps: ModelCliDeps): ModelDeps => ({
  examples: deps.examples,
  versions: deps.versions,
  ...(deps.requests ? { requests: deps.requests } : {}),
  shipped: readModelMeta(metaPathOf(deps.modelPath || MODEL_PATH)).version,
});

/** Trains a candidate from the kept reviews (the workspaces that still exist and share). */
const train = (m: ModelCliDeps, deps: CliDeps) =>
  trainDeploymentModel({
    examples: m.examples,
    versions: m.versions,
    eligible: async (id) =>
      (await deps.keystore.getWorkspace(id)) !== null && (await deps.reports.shares(id)),
    shipped: shippedOf(m),
    canaryPath: CANARY_PATH,
    now: m.now,
  });

type Trained = Awaited<ReturnType<typeof train>>;
const trainedView = (trained: Trained) => ({
  version: trained.version,
  comparison: trained.comparison,
  reviews: trained.info.reviews,
  sites: trained.info.sites,
  skipped: trained.info.skipped,
  untrusted: trained.untrusted,
  seconds: Math.round(trained.seconds * 10) / 10,
  ...(trained.canaryMissing ? { canaryMissing: trained.canaryMissing } : {}),
});

/**
 * `sift model train --requested`: the training asked for through POST /v1/model/candidates, run
 * here (a process of its own, never the API's); nothing when none waits.
 */
const trainRequested = async (m: ModelCliDeps, deps: CliDeps) => {
  if (!m.requests) throw new Error("the model commands need the deployment's Redis");
  const id = await m.requests.claim(m.now());
  if (!id) return { trained: false, request: null };
  try {
    const trained = await train(m, deps);
    await m.requests.finish(id, m.now(), { version: trained.version });
    return { trained: true, request: id, ...trainedView(trained) };
  } catch (err) {
    await m.requests.finish(id, m.now(), { error: (err as Error).message });
    throw err;
  }
};

export const MODEL_COMMANDS: Record<string, Command> = {
  "model status": { flags: [], run: (_flags, deps) => modelStatus(serviceDeps(modelDeps(deps))) },
  "model train": {
    flags: ["min-new"],
    booleans: ["promote-if-wins", "requested"],
    run: async (flags, deps) => {
      const m = modelDeps(deps);
      if (flags["requested"] === "true") return trainRequested(m, deps);
      const minNew = parse(z.coerce.number().int().min(0).max(1e9), flags["min-new"], "min-new");
      // The schedule (issue 53, off unless a deployment runs it, e.g. nightly from cron): train
      // only when enough reviews were kept since the last candidate, promote only when it wins.
      if (minNew !== undefined) {
        const last = await m.versions.candidate();
        const since = last ? ((await m.versions.info(last))?.keptEver ?? 0) : 0;
        const fresh = (await m.examples.keptEver()) - since;
        if (fresh < minNew) return { trained: false, newReviews: fresh, minNew };
      }
      const trained = unwrap(
        await trainModel(
          deps.operations,
          actorOf(deps),
          () => train(m, deps),
          (t) => ({
            ...trainedView(t),
            comparison: { wins: t.comparison.wins, losses: t.comparison.losses },
          }),
        ),
        "",
      );
      const promoted = flags["promote-if-wins"] === "true" && trained.comparison.wins;
      // A promotion is the model's change whichever door: its own audit entry, as `model promote`'s.
      if (promoted)
        unwrap(await promoteModel(deps.operations, actorOf(deps), { version: trained.version }), "");
      return {
        ...trainedView(trained),
        ...(flags["promote-if-wins"] === "true" ? { promoted } : {}),
      };
    },
  },
  "model promote": {
    flags: ["version"],
    booleans: ["force"],
    run: async (flags, deps) => {
      const version = required(flags, "version");
      return unwrap(
        await promoteModel(deps.operations, actorOf(deps), { version, force: flags["force"] === "true" }),
        `no model version ${version} (sift model status lists the candidate)`,
        `${version} lost its comparison with the model in service; promote it with --force if you mean to`,
      );
    },
  },
  "model rollback": {
    flags: [],
    run: async (_flags, deps) =>
      unwrap(
        await rollbackModel(deps.operations, actorOf(deps)),
        "",
        "nothing to roll back to: no version was promoted before",
      ),
  },
};
