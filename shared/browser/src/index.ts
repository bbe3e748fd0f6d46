// Node side of the package: where sift.js lives and how to build it. The browser code is in client/.
export { browserBundlePath } from "./paths.ts";
export { buildBrowserBundle, type BuiltBundle } from "./build.ts";
