import { fileURLToPath } from "node:url";

/**
 * The public canary set shipped with the model (issue 53): a few hundred messages of the public
 * training data as featuriser ids and values only, that a deployment's own model must not get
 * worse on (`sift model train`). Built by `pnpm model:canary` (@sift/training); a new featuriser
 * needs it rebuilt (the file names the featuriser it was made with).
 */
export const CANARY_PATH = fileURLToPath(new URL("../canary/spam-standard.canary", import.meta.url));
