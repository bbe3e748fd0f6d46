import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { closeServer, serveHttp } from "../src/lifecycle.ts";

const started: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((stop) => stop()));
});

const serve = async (limits: Parameters<typeof serveHttp>[3]) => {
  const { server, port } = await serveHttp((_req, res) => res.end("ok"), 0, "127.0.0.1", limits);
  started.push(async () => {
    server.closeAllConnections();
    await closeServer(server);
  });
  return { server, port };
};

/** Connects and resolves once connected; `closed` settles when the server hangs up. */
const open = (port: number) =>
  new Promise<{ socket: Socket; closed: Promise<string> }>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    const closed = new Promise<string>((done) => socket.on("close", () => done(received)));
    socket.on("error", () => {});
    socket.once("connect", () => resolve({ socket, closed }));
    socket.once("error", reject);
  });

const get = (port: number) => fetch(`http://127.0.0.1:${port}/`, { headers: { connection: "close" } });

describe("serveHttp limits", () => {
  it("keeps Node's defaults when given none", async () => {
    const { server } = await serve(undefined);
    expect([server.headersTimeout, server.requestTimeout, server.maxConnections]).toEqual([
      60_000,
      300_000,
      undefined,
    ]);
  });

  it("closes connections past maxConnections as they arrive, and takes new ones once below it", async () => {
    const { port } = await serve({ maxConnections: 3 });
    const held = await Promise.all([open(port), open(port), open(port)]);
    const extra = await open(port);
    // The fourth is accepted by the kernel, then closed by the server without an answer.
    expect(await extra.closed).toBe("");
    held[0]!.socket.destroy();
    await held[0]!.closed;
    await expect.poll(async () => (await get(port).catch(() => null))?.status).toBe(200);
    for (const h of held) h.socket.destroy();
  });

  it("answers 408 and closes when the headers do not arrive in time", async () => {
    const { port } = await serve({ headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 100 });
    const slow = await open(port);
    const t0 = Date.now();
    slow.socket.write("GET / HTTP/1.1\r\nHost: x\r\n");
    expect(await slow.closed).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });
});
