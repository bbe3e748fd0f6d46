import type { Express } from "express";
import { MANAGEMENT_IDENTITY_ROUTE } from "@sift/contracts";
import { managementApi, type ManagementDeps } from "@sift/management";
import {
  identityGate,
  serviceApp,
  type Clock,
  type IdentitySigner,
  type Logger,
  type ReadinessChecks,
  type RedisClient,
  type Registry,
} from "@sift/runtime";

export interface ManagementServiceDeps {
  management: ManagementDeps & { redis: RedisClient };
  signer: IdentitySigner;
  clock: Clock;
  logger: Logger;
  readiness: ReadinessChecks;
  metrics?: Registry | undefined;
}

/**
 * The management API as a service of its own (DESIGN, "management service"): /v1 behind the
 * identity the gateway signs (a call to this port that did not come through the gateway, with
 * its body limit, gets nothing), then @sift/management's token check, per-token rate and routes.
 * Its load runs in this process, never in the gateway's or classify's event loop.
 */
export const buildManagementApp = (deps: ManagementServiceDeps): Express =>
  serviceApp(deps, (app) => {
    app.use("/v1", identityGate(deps, MANAGEMENT_IDENTITY_ROUTE), managementApi(deps.management));
  });
