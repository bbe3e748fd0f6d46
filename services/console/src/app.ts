import express, { type Express } from "express";
import type { ReportStore } from "@sift/feedback";
import type { VerdictLog } from "@sift/verdicts";
import type { Keystore, RedisUsageMeter, RefusalCounter } from "@sift/keystore";
import type { OperationDeps } from "@sift/operations";
import {
  serviceApp,
  serviceEndpoint,
  type Clock,
  type IdentitySigner,
  type Logger,
  type ReadinessChecks,
  type RedisClient,
  type Registry,
} from "@sift/runtime";
import type { AccountStore } from "./clients/accounts.ts";
import type { AuditLog } from "./clients/audit.ts";
import type { SecretFlash } from "./clients/flash.ts";
import type { InvitationStore } from "./clients/invitations.ts";
import type { SessionStore } from "./clients/sessions.ts";
import type { SecondFactorStore } from "./clients/second-factor.ts";
import type { SignInThrottle } from "./clients/throttle.ts";
import { assetRoutes } from "./routes/assets.ts";
import { consoleContext, sendPage } from "./routes/context.ts";
import { homeRoutes } from "./routes/home.ts";
import { modelRoutes } from "./routes/model.ts";
import { listRoutes } from "./routes/lists.ts";
import { settingsRoutes } from "./routes/settings.ts";
import { signInRoutes } from "./routes/sign-in.ts";
import { secondFactorRoutes } from "./routes/second-factor.ts";
import { siteRoutes } from "./routes/sites.ts";
import { usageRoutes } from "./routes/usage.ts";
import { accountRoutes } from "./routes/account.ts";
import { inviteRoutes } from "./routes/invite.ts";
import { memberRoutes } from "./routes/members.ts";
import { submissionRoutes } from "./routes/submissions.ts";
import { overviewRoutes } from "./routes/overview.ts";
import { reviewRoutes, type Rescorer } from "./routes/review.ts";
import { NOT_FOUND_PAGE } from "./views/layout.ts";

export interface ConsoleDeps {
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  redis: RedisClient;
  keystore: Keystore;
  /** The changes /v1 and the CLI make too (@sift/operations): the same checks, audit and webhooks. */
  operations: OperationDeps;
  usage: RedisUsageMeter;
  /** Each workspace's 429 answers per day, for the usage page. */
  refusals: RefusalCounter;
  lists: ReportStore;
  /** The verdict log classify and verify write (@sift/verdicts), read by Submissions and Review. */
  verdicts: VerdictLog;
  /** Whether the deployment has a log key (SIFT_LOG_KEYS): without one `full` keeps no text. */
  canSealContent: boolean;
  /** Scores a reviewed submission again with the workspace's layer (the model workers over NATS). */
  rescorer?: Rescorer | undefined;
  accounts: AccountStore;
  sessions: SessionStore;
  throttle: SignInThrottle;
  audit: AuditLog;
  /** New and rotated secrets on their way to the page that shows them once. */
  flash: SecretFlash;
  invitations: InvitationStore;
  decoyHash: string;
  config: { sessionAbsoluteMs: number; operatorSecondFactor?: "required" | "optional" | undefined };
  /** TOTP and recovery codes at sign-in, and the workspaces that ask every member for them. */
  secondFactor: SecondFactorStore;
  readiness: ReadinessChecks;
  metrics?: Registry | undefined;
}

/**
 * The console service: server-rendered pages for people, behind the gateway's `session` access
 * kind at /console (GET pages as the `console` route, POST forms as `consoleForms`), each behind
 * the signed identity like every service's endpoints.
 */
export const buildConsoleApp = (deps: ConsoleDeps): Express =>
  serviceApp(deps, (app) => {
    const router = express.Router();
    assetRoutes(router);
    router.use(consoleContext(deps));
    signInRoutes(router, { ...deps, absoluteMs: deps.config.sessionAbsoluteMs });
    secondFactorRoutes(router, deps);
    homeRoutes(router, deps);
    modelRoutes(router, deps);
    siteRoutes(router, deps);
    listRoutes(router, deps);
    settingsRoutes(router, deps);
    overviewRoutes(router, deps);
    submissionRoutes(router, deps);
    reviewRoutes(router, deps);
    usageRoutes(router, deps);
    memberRoutes(router, deps);
    inviteRoutes(router, { ...deps, absoluteMs: deps.config.sessionAbsoluteMs });
    accountRoutes(router, deps);
    router.use((_req, res) => sendPage(res, 404, NOT_FOUND_PAGE));
    serviceEndpoint(app, "console", deps, router);
    serviceEndpoint(app, "consoleForms", deps, router);
  });
