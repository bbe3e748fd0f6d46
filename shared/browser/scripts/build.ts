import { buildBrowserBundle } from "../src/build.ts";

const built = await buildBrowserBundle();
console.log(`${built.path}: ${built.bytes} bytes, ${built.gzipBytes} bytes gzipped`);
