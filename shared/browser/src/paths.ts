import { fileURLToPath } from "node:url";

/** Where `pnpm --filter @sift/browser build` writes sift.js; the gateway serves it as /sift.js. */
export const browserBundlePath = (): string => fileURLToPath(new URL("../dist/sift.js", import.meta.url));
