import { createServer, connect, type Server, type Socket } from "node:net";

/**
 * A TCP proxy in front of Redis that can hold what clients send for `delayMs` before passing it
 * on, in order: a Redis that is slow to answer, as a stalled or overloaded one is. Replies are
 * not delayed; the commands take effect late, which is what a time-out has to cope with.
 */
export interface DelayProxy {
  url: string;
  delayMs: number;
  /** Resolves once nothing held is still waiting to be passed on. */
  drained(): Promise<void>;
  stop(): Promise<void>;
}

export const startDelayProxy = async (target: { host: string; port: number }): Promise<DelayProxy> => {
  const sockets = new Set<Socket>();
  let held = 0;
  const proxy: DelayProxy = {
    url: "",
    delayMs: 0,
    drained: async () => {
      while (held > 0) await new Promise((r) => setTimeout(r, 20));
    },
    stop: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    // One queue per connection, sent strictly in order: timers of different lengths that fall due
    // in the same millisecond may fire in either order, which would reorder the commands.
    const queue: Array<{ due: number; chunk: Buffer }> = [];
    let timer: NodeJS.Timeout | undefined;
    const pump = () => {
      timer = undefined;
      while (queue.length > 0 && queue[0]!.due <= Date.now()) {
        held--;
        const { chunk } = queue.shift()!;
        if (!upstream.destroyed) upstream.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(pump, queue[0]!.due - Date.now());
    };
    client.on("data", (chunk: Buffer) => {
      const last = queue.at(-1)?.due ?? 0;
      queue.push({ due: Math.max(Date.now() + proxy.delayMs, last), chunk });
      held++;
      if (!timer) pump();
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    const close = () => {
      if (timer) clearTimeout(timer);
      held -= queue.splice(0).length;
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  proxy.url = `redis://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return proxy;
};
