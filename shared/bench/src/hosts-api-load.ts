/**
 * One of hosts.ts's /v1 loads in a process of its own, as a control panel elsewhere would send
 * it: `SIFT_BENCH_TOKEN=st_… tsx hosts-api-load.ts <gateway url> <busy|heavy>`. Prints `ready`,
 * runs until SIGTERM, then prints `{calls, operations, failed}` as JSON and exits.
 */
import { apiClient, apiLoad, type ApiLevel } from "./api-load.ts";

const [baseUrl, level] = process.argv.slice(2);
const token = process.env["SIFT_BENCH_TOKEN"];
if (!baseUrl || (level !== "busy" && level !== "heavy") || !token)
  throw new Error("usage: SIFT_BENCH_TOKEN=st_… hosts-api-load.ts <gateway url> <busy|heavy>");
const load = apiLoad(level as ApiLevel, apiClient(baseUrl, token));
process.once("SIGTERM", () => {
  void load.stop().then((made) => {
    process.stdout.write(`${JSON.stringify(made)}\n`);
    process.exit(0);
  });
});
process.stdout.write("ready\n");
