import { request, type Server } from "node:http";
import type { RequestHandler } from "express";
import { z } from "zod";
import {
  ENDPOINTS,
  headerKeyAuth,
  queryParameters,
  type EndpointTable,
  type Identity,
} from "@sift/contracts";
import { Keystore } from "@sift/keystore";
import {
  bodyField,
  closeServer,
  createHttpServer,
  createRedis,
  identityOf,
  IdentitySigner,
  listen,
  rawBody,
  redisReady,
  requestParams,
  serviceApp,
  serviceEndpoint,
  silentLogger,
  systemClock,
  type RedisClient,
} from "@sift/runtime";
import { createGatewayService } from "../src/wiring.ts";

/**
 * ENDPOINTS plus entries no release ships, mounted through the real gateway onto one real
 * service app: a keyed GET of each key kind, and the console's two session entries (its pages
 * and its forms under one prefix: ENDPOINTS' own, `console` and `consoleForms`, here answered by
 * the test app instead of the console service). The path a new endpoint takes, proven without a
 * public one.
 */
export const TABLE = {
  ...ENDPOINTS,
  lookup: {
    method: "GET",
    path: "/lookup",
    service: "classify",
    access: "classify_key",
    errors: "classify",
    upstreamDown: "internal",
    doc: {
      summary: "A keyed GET (tests only)",
      security: headerKeyAuth,
      parameters: queryParameters(z.object({ q: z.string(), tag: z.string().optional() })),
      responses: { "200": { description: "What the handler saw" } },
    },
  },
  status: {
    method: "GET",
    path: "/status",
    service: "verify",
    access: "verify_key",
    errors: "verify",
    upstreamDown: "internal",
    doc: { summary: "A verify-keyed GET (tests only)", responses: {} },
  },
} as const satisfies EndpointTable;

/** What the test service's handlers answer: everything that reached them. */
export interface Seen {
  identity: Identity;
  url: string;
  params: Record<string, unknown>;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Harness {
  gatewayUrl: string;
  serviceUrl: string;
  keystore: Keystore;
  /** How many calls reached a handler of the service. */
  handled(): number;
  stop(): Promise<void>;
}

/** The CSP the console would send for its own pages (the gateway's own is `default-src 'none'`). */
export const SERVICE_CSP = "default-src 'self'";

export const startHarness = async (redisUrl: string): Promise<Harness> => {
  const clock = systemClock;
  const logger = silentLogger();
  const signer = new IdentitySigner("test-internal-secret-0123456789abcdef");
  const redis: RedisClient = createRedis({ url: redisUrl }, "sift-test-endpoints");
  await redisReady(redis);

  let handled = 0;
  const echo =
    (params: string[]): RequestHandler =>
    (req, res) => {
      handled += 1;
      const given = requestParams(req);
      const seen: Seen = {
        identity: identityOf(res),
        url: req.originalUrl,
        params: Object.fromEntries(params.map((name) => [name, bodyField(given, name)])),
        body: rawBody(req).toString("utf8"),
        headers: req.headers,
      };
      if (req.originalUrl.startsWith("/console")) {
        res.setHeader("Set-Cookie", "session=rotated; Path=/console; HttpOnly; SameSite=Lax");
        res.setHeader("Content-Security-Policy", SERVICE_CSP);
      }
      res.json(seen);
    };
  const gate = { signer, clock };
  const app = serviceApp({ logger, readiness: {} }, (app) => {
    serviceEndpoint(app, "lookup", gate, echo(["q", "tag", "secretKey"]), TABLE);
    serviceEndpoint(app, "status", gate, echo(["q"]), TABLE);
    serviceEndpoint(app, "console", gate, echo(["page"]), TABLE);
    serviceEndpoint(app, "consoleForms", gate, echo(["name", "csrf"]), TABLE);
  });
  const service = await serve(createHttpServer(app));
  const gateway = await serve(
    createHttpServer(
      createGatewayService({
        endpoints: TABLE,
        config: {
          verifyUrl: service.url,
          classifyUrl: service.url,
          consoleUrl: service.url,
          challengeRate: 1_000,
          challengeBurst: 1_000,
          testKeyRate: 1_000,
          testKeyBurst: 1_000,
          trustProxy: 0,
        },
        redis,
        clock,
        logger,
        signer,
        readiness: {},
      }),
    ),
  );
  return {
    gatewayUrl: gateway.url,
    serviceUrl: service.url,
    keystore: new Keystore({ redis, clock }),
    handled: () => handled,
    stop: async () => {
      await gateway.stop();
      await service.stop();
      redis.disconnect();
    },
  };
};

const serve = async (server: Server) => {
  const port = await listen(server, 0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
};

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/**
 * One call over node:http, which (unlike fetch) sends a body with any method: a GET with a body
 * is what the gateway must read under its limit and then drop.
 */
export const call = (
  url: string,
  options: { method: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    // Node sends a GET's body without framing unless told its length.
    const length =
      options.body === undefined ? {} : { "content-length": String(Buffer.byteLength(options.body)) };
    const headers = { ...length, ...options.headers };
    const req = request(url, { method: options.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
      });
    });
    req.on("error", reject);
    req.end(options.body);
  });
