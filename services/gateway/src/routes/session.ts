import type { RequestHandler } from "express";
import type { Method } from "@sift/contracts";
import { clientAddress, requestContext, type Clock } from "@sift/runtime";
import { forwardedBody } from "../clients/service-proxy.ts";
import { identityFor } from "../domain/identity.ts";

/**
 * Pages for people (the console): the gateway resolves no key, answers no CORS preflight (the
 * pages are same-origin) and limits no rate (the service throttles its own sign-in). It keeps
 * what it gives every call: the body limit, the security headers, the request id, and a signed
 * identity with no key and the caller's address, so the service still answers only calls that
 * came through the gateway. The body goes on unparsed, whatever its type; the Cookie header goes
 * on (see app.ts), and sign-in, sessions and CSRF are the service's.
 */
export const sessionAccess =
  (deps: { clock: Clock }, route: string, method: Method): RequestHandler =>
  (req, res, next) => {
    const context = requestContext(res);
    const identity = identityFor(
      route,
      context.requestId!,
      deps.clock.now(),
      { status: "missing" },
      clientAddress(req),
    );
    context.forward = { identity, raw: forwardedBody(req, method) };
    next();
  };
