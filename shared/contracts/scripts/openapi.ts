// pnpm openapi: writes docs/openapi.json from the contracts.
import { writeFileSync } from "node:fs";
import { openApiDocument } from "../src/openapi.ts";

const file = new URL("../../../docs/openapi.json", import.meta.url);
writeFileSync(file, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${file.pathname}`);
