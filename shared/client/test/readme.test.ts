import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { solveFromService } from "@sift/challenge";
import { closeServer, listen } from "@sift/runtime";
import {
  createKey,
  startModelWorker,
  startServer,
  startStack,
  type RunningModelWorker,
  type Stack,
  type TestServer,
} from "@sift/testkit";

/**
 * The README's Express contact form, taken from the README as written (only the import of the
 * package pointed at its source) and run against the real stack with real keys, real
 * solutions and the real model.
 */
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const examplePath = `${packageDir}.tmp/readme-example.mjs`;

let nats: TestServer;
let stack: Stack;
let worker: RunningModelWorker | undefined;
let site: Server;
let siteUrl: string;
let siteKey: string;

beforeAll(async () => {
  nats = await startServer("nats");
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: nats.url });
  worker = await startModelWorker(nats.url);
  const challenge = await createKey(stack.keystore, { kind: "challenge" });
  const classify = await createKey(stack.keystore, { kind: "classify" });
  siteKey = challenge.siteKey!;
  process.env["SIFT_URL"] = stack.gatewayUrl;
  process.env["SIFT_CHALLENGE_KEY"] = challenge.secretKey;
  process.env["SIFT_CLASSIFY_KEY"] = classify.secretKey;

  const readme = await readFile(`${packageDir}README.md`, "utf8");
  const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block?.includes('from "@sift/client"')) throw new Error("README: no js block importing @sift/client");
  await mkdir(`${packageDir}.tmp`, { recursive: true });
  await writeFile(examplePath, block.replace('from "@sift/client"', `from "${packageDir}src/index.ts"`));
  const { app } = (await import(/* @vite-ignore */ examplePath)) as { app: RequestListener };
  site = createServer(app);
  siteUrl = `http://127.0.0.1:${await listen(site, 0, "127.0.0.1")}`;
});
afterAll(async () => {
  if (site) await closeServer(site);
  await worker?.stop();
  await stack?.stop();
  await nats?.stop();
  await rm(`${packageDir}.tmp`, { recursive: true, force: true });
});

const submit = async (fields: Record<string, string>) => {
  const res = await fetch(`${siteUrl}/contact`, { method: "POST", body: new URLSearchParams(fields) });
  return [res.status, await res.text()] as const;
};
const solution = async () => (await solveFromService({ siteKey, baseUrl: stack.gatewayUrl })).solution;

const CLEAN = { name: "Ann", email: "ann@example.com", message: "Is the shop open on Sunday?" };
const SPAM = {
  name: "Prize team",
  message:
    "CONGRATULATIONS! You have WON a $1000 Walmart gift card. Click here to claim your prize now: http://bit.ly/claim-prize",
};

describe("the README's contact form", () => {
  it("thanks a real visitor, holds spam for review, and refuses a missing or replayed _vendor", async () => {
    const vendor = await solution();
    expect(await submit({ ...CLEAN, _vendor: vendor })).toEqual([200, "Thanks, we will be in touch."]);
    expect(await submit({ ...CLEAN, _vendor: vendor })).toEqual([403, "Please try again."]);
    expect(await submit({ ...SPAM, _vendor: await solution() })).toEqual([202, "Held for review."]);
    expect(await submit(CLEAN)).toEqual([403, "Please try again."]);
  });

  it("keeps messages while the model is down (503 is clean by the policy)", async () => {
    await worker!.stop();
    worker = undefined;
    expect(await submit({ ...SPAM, _vendor: await solution() })).toEqual([
      200,
      "Thanks, we will be in touch.",
    ]);
  });
});
