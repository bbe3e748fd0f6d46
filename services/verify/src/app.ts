import type { Express } from "express";
import { Counter, serviceApp, serviceEndpoint, type AppDeps } from "@sift/runtime";
import type { ReplayGuard, SigningSecretRing } from "@sift/challenge/server";
import type { LogSettings, VerdictInput } from "@sift/verdicts";
import type { AdaptiveStore } from "./clients/adaptive-store.ts";
import { challengeRoute, type SiteConfigLookup } from "./routes/challenge.ts";
import { verifyRoute } from "./routes/verify.ts";

export interface VerifyDeps extends AppDeps {
  /** The challenge signing-key ring: signs what /challenge issues, checks what /verify gets. */
  signingSecrets: SigningSecretRing;
  /** Marks a solution spent, once. */
  guard: ReplayGuard;
  /** The keystore: a site key's configuration. */
  keystore: SiteConfigLookup;
  /** Scores behind adaptive difficulty. */
  adaptive: AdaptiveStore;
  /** The verdict log's write side; none: nothing recorded. */
  verdicts?: { record(input: VerdictInput, settings: LogSettings): boolean } | undefined;
  /** Counts accepted solutions per workspace and day (the management API's usage `verified`). */
  verified?: { count(workspaceId: string): void } | undefined;
}

/** The verify service: /verify and the browser-facing /challenge, each behind the signed identity. */
export const buildVerifyApp = (deps: VerifyDeps): Express => {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter({ name, help, labelNames, registers: deps.metrics ? [deps.metrics] : [] });
  const outcomes = counter(
    "sift_verify_outcomes_total",
    "Verify answers by outcome: ok (a real solution accepted), else the spec's message (Test key for the test key, whatever its solution)",
    ["outcome"],
  );
  const issued = counter("sift_challenges_total", "Challenge requests by outcome", ["outcome"]);
  const decisions = counter(
    "sift_challenge_difficulty_total",
    "Difficulty decisions of issued challenges: fixed or adaptive, bits above the floor, and the score that raised them",
    ["mode", "raise", "cause"],
  );
  const signals = counter(
    "sift_challenge_failed_verify_signals_total",
    "Failed or spent verifies counted toward their configuration's adaptive difficulty (recorded or lost)",
    ["outcome"],
  );
  return serviceApp(deps, (app) => {
    // Every answer here is a POST's or a one-time challenge's: express's weak ETag (a hash of
    // each body) is work no client can use.
    app.set("etag", false);
    serviceEndpoint(app, "verify", deps, verifyRoute({ ...deps, outcomes, signals }));
    serviceEndpoint(app, "challenge", deps, challengeRoute({ ...deps, issued, decisions }));
  });
};
