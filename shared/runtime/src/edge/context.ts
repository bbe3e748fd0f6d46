import type { Response } from "express";
import type { ErrorFormat, ErrorKind, Identity } from "@sift/contracts";
import type { Context } from "../tracing.ts";

/** What an access route at the gateway leaves for the proxy to forward. */
export interface Forward {
  identity: Identity;
  /** The body as read (and limited) at the gateway, sent on as is; none for a GET or DELETE. */
  raw?: Buffer | undefined;
}

/**
 * What the edge's middleware learn about one request, for the middleware and handler after
 * them: the one place these fields are declared. Each is set by one step of the chain.
 */
export interface RequestContext {
  /** `assignRequestId`, at the gateway (a service reads its identity's). */
  requestId?: string;
  /** `assignAttempt`, at the gateway: the attempt id it signs into every identity it forwards. */
  attempt?: string;
  /** `identityGate`, at a service: who the gateway says is calling. */
  identity?: Identity;
  /** `errorFormat`, mounted first on an endpoint: every error it answers takes this shape (JSON when unset). */
  errorFormat?: ErrorFormat;
  /** `sendError`: which error of the table answered (the metrics count it). */
  errorKind?: ErrorKind;
  /**
   * The span now open for this request (tracing on): `traceRequest` sets the request's own span,
   * `traceForward` the gateway's hop to the service while it runs. What starts next hangs off it.
   */
  traceContext?: Context;
  /** An access route at the gateway: the signed identity and the body the proxy sends on. */
  forward?: Forward;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** Read and written through requestContext(res) only. */
      sift?: RequestContext;
    }
  }
}

/** The request's context, made empty on first use. */
export const requestContext = (res: Response): RequestContext => (res.locals.sift ??= {});
