import { createServer, type Server } from "node:http";

/**
 * /healthz: the process answers (liveness). /readyz: it takes work (subscribed, connected, not
 * draining), so an orchestrator stops counting a draining worker before it exits.
 */
export const createHealthServer = (ready: () => boolean): Server =>
  createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/healthz") return respond(res, 200, { ok: true });
    if (path === "/readyz")
      return ready() ? respond(res, 200, { ok: true }) : respond(res, 503, { ok: false });
    return respond(res, 404, { ok: false });
  });

const respond = (res: import("node:http").ServerResponse, status: number, body: object): void => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};
