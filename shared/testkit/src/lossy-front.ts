import { connect, createServer, type AddressInfo, type Socket } from "node:net";

/**
 * How a request through a LossyFront is lost, as a replica lost with it in flight loses it:
 * `before` reads the request and resets the connection without passing it on (the replica died
 * before acting on it); `after` passes the request on, lets the service act on it, then resets
 * the caller's connection instead of passing the answer back (the replica died as it answered);
 * `midway` passes the request on and, once its bytes are handed to the service's connection,
 * closes both sides, as the service sees a caller that goes while it works (a gateway lost with
 * the call in flight).
 */
export type Loss = "before" | "after" | "midway";

export interface LossyFront {
  /** The address to use instead of the service's. */
  readonly url: string;
  /** Loses each of the next requests, in the order given. */
  lose(...losses: Loss[]): void;
  /** Requests that came through, lost or not, since the front started. */
  requests(): number;
  stop(): Promise<void>;
}

/**
 * A TCP front to a real HTTP service that passes every connection through byte for byte, except
 * for the requests `lose` arms: a replica killed with a request in flight, on one address. A
 * request is told by its first bytes on a connection at rest (the tests' requests are small: one
 * read each), so kept-alive connections lose requests too, as they do when a replica dies.
 */
export const startLossyFront = async (target: string): Promise<LossyFront> => {
  const { hostname, port } = new URL(target);
  const armed: Loss[] = [];
  const sockets = new Set<Socket>();
  let requests = 0;
  const server = createServer((caller) => {
    const service = connect(Number(port), hostname);
    for (const socket of [caller, service]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    }
    const lost = () => (caller.resetAndDestroy(), service.destroy());
    let losing = false;
    caller.on("data", (chunk: Buffer) => {
      requests++;
      const loss = armed.shift();
      if (loss === "before") lost();
      else if (loss === "midway") {
        // Only after the write is flushed: on a connection still opening (a busy machine), an
        // earlier close dropped the queued request, a loss `before` the service saw it, which
        // is not what `midway` means (resend.test.ts then saw no give-back).
        service.write(chunk, () => setImmediate(lost));
      } else {
        // `after`: the service acts on it and answers; the caller gets a reset instead.
        if (loss === "after") losing = true;
        service.write(chunk);
      }
    });
    service.on("data", (chunk: Buffer) => (losing ? lost() : caller.write(chunk)));
    caller.once("end", () => service.end());
    service.once("end", () => caller.end());
    caller.on("error", () => service.destroy());
    service.on("error", () => caller.destroy());
  });
  const address = await new Promise<AddressInfo>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(server.address() as AddressInfo)),
  );
  return {
    url: `http://127.0.0.1:${address.port}`,
    lose: (...losses) => void armed.push(...losses),
    requests: () => requests,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
};
