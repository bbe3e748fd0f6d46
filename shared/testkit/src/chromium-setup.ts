import type {} from "vitest";
import type { TestProject } from "vitest/node";
import { ensureChromium, systemHost } from "./chromium.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Whether the browser suites run; false only off CI when Chromium is missing and cannot be installed. */
    browserTests: boolean;
  }
}

/**
 * Once per run, before any test file: make sure Chromium is there (installing it where the
 * process may), else skip the browser suites with one line saying how to enable them. On CI
 * (`CI` set, as .ci/run does) they never skip: a missing Chromium fails them there.
 */
export default async function setup(project: TestProject): Promise<void> {
  const state = await ensureChromium(systemHost);
  if (!state.ok && !process.env["CI"]) console.warn(`sift: ${state.reason}`);
  project.provide("browserTests", state.ok || Boolean(process.env["CI"]));
}
