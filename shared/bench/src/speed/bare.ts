// The bench's "bare chain": the plumbing the design card prescribes, doing no work. Run as its
// own process, one per role:
//   tsx bare.ts service <port>           an express app that reads the JSON body and answers a
//                                        fixed verdict (POST /classify) or { ok: true } (else)
//   tsx bare.ts gateway <port> <target>  an express app that forwards everything to <target>
//                                        with http-proxy-middleware over a keep-alive agent
// Both print "ready" once listening and close on SIGTERM.
import { Agent } from "node:http";
import express from "express";
import { createProxyMiddleware } from "http-proxy-middleware";

const [role, portText, target] = process.argv.slice(2);
const app = express();
app.disable("x-powered-by");
app.get("/healthz", (_req, res) => void res.json({ ok: true }));
if (role === "service") {
  const verdict = JSON.stringify({ label: "clean", score: 0.01, model: "spam-standard" });
  app.use(express.json({ limit: "1mb" }));
  app.post("/classify", (_req, res) => void res.type("application/json").send(verdict));
  app.use((_req, res) => void res.json({ ok: true }));
} else if (role === "gateway" && target) {
  // The same agent settings as the Sift gateway's proxy (services/gateway/src/clients/service-proxy.ts).
  app.use(createProxyMiddleware({ target, agent: new Agent({ keepAlive: true, maxSockets: 512 }) }));
} else {
  console.error("usage: bare.ts service <port> | gateway <port> <target>");
  process.exit(2);
}
app.listen(Number(portText), "127.0.0.1", () => console.log("ready"));
// A stub: nothing to finish, and a keep-alive connection must not hold the bench up.
process.on("SIGTERM", () => process.exit(0));
