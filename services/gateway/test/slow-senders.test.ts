import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { VerifyMessage } from "@sift/contracts";
import { post, startStack, type Stack } from "@sift/testkit";

/**
 * 1,000 connections trickling a byte every 500 ms (half never finish their headers, half never
 * finish a body) against the real gateway, while ordinary requests are timed. Short time-outs
 * here so the test can also watch them fire; production defaults are in config.ts. The figures
 * go to stderr (console.warn, the lint's allowed channel) for docs/reliability.md.
 */
const HEADERS_TIMEOUT_MS = 6_000;
const REQUEST_TIMEOUT_MS = 9_000;
const ORDINARY = 100;
const CHECK_INTERVAL_MS = 500;
const TRICKLERS = 1_000;
const TRICKLE_EVERY_MS = 500;

let stack: Stack;
let port: number;
beforeAll(async () => {
  stack = await startStack({
    redisUrl: inject("redisUrl"),
    natsUrl: inject("natsUrl"),
    gatewayLimits: {
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      checkIntervalMs: CHECK_INTERVAL_MS,
      maxConnections: 4_000,
    },
  });
  port = Number(new URL(stack.gatewayUrl).port);
});
afterAll(() => stack?.stop());

interface Trickler {
  socket: Socket;
  kind: "headers" | "body";
  /** What the server sent before closing, and when it closed (ms since the test's start). */
  received: string;
  closedAt?: number;
}

const openTrickler = (kind: Trickler["kind"], start: number): Promise<Trickler> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const t: Trickler = { socket, kind, received: "" };
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (t.received += chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      t.closedAt = Date.now() - start;
    });
    socket.once("connect", () => {
      socket.removeListener("error", reject);
      if (kind === "headers") socket.write("POST /verify HTTP/1.1\r\nHost: sift\r\nX-Slow: ");
      else
        socket.write(
          "POST /verify HTTP/1.1\r\nHost: sift\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{",
        );
      // Spread over the period, as independent clients would be, not 100 writes at one instant.
      setTimeout(() => {
        if (t.closedAt === undefined)
          timer = setInterval(() => socket.writable && socket.write("a"), TRICKLE_EVERY_MS);
      }, Math.random() * TRICKLE_EVERY_MS);
      resolve(t);
    });
    socket.once("error", reject);
  });

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

describe("slow senders", () => {
  it("holds 1,000 trickling connections, answers ordinary requests fast, and times the tricklers out", async () => {
    const start = Date.now();
    const tricklers: Trickler[] = [];
    for (let i = 0; i < TRICKLERS; i += 100) {
      tricklers.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, (_, j) => openTrickler((i + j) % 2 ? "body" : "headers", start)),
        )),
      );
    }
    const opened = Date.now() - start;
    expect(tricklers.filter((t) => t.closedAt === undefined)).toHaveLength(TRICKLERS);

    // Ordinary requests while all 1,000 are held open (one first to open the client's connection).
    await post(`${stack.gatewayUrl}/verify`, { secretKey: "test", solution: "x" });
    const latencies: number[] = [];
    for (let i = 0; i < ORDINARY; i++) {
      const t0 = performance.now();
      const reply = await post(`${stack.gatewayUrl}/verify`, { secretKey: "test", solution: "x" });
      latencies.push(performance.now() - t0);
      expect(reply.json).toEqual({ ok: false, message: VerifyMessage.testKey });
    }
    latencies.sort((x, y) => x - y);
    const stillOpen = tricklers.filter((t) => t.closedAt === undefined).length;
    const median = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    console.warn(
      `slow senders: ${TRICKLERS} tricklers opened in ${opened} ms, ${stillOpen} still open while measuring; ` +
        `${ORDINARY} ordinary requests: median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
    );
    expect(stillOpen).toBe(TRICKLERS);
    expect(median).toBeLessThan(100);
    expect(p95).toBeLessThan(100);

    // Then the time-outs fire: 408 and close, headers first, bodies at the request time-out.
    await expect
      .poll(() => tricklers.filter((t) => t.closedAt === undefined).length, {
        timeout: REQUEST_TIMEOUT_MS + 4 * CHECK_INTERVAL_MS + 2_000,
        interval: 200,
      })
      .toBe(0);
    for (const kind of ["headers", "body"] as const) {
      const mine = tricklers.filter((t) => t.kind === kind);
      const limit = kind === "headers" ? HEADERS_TIMEOUT_MS : REQUEST_TIMEOUT_MS;
      const closed = mine.map((t) => t.closedAt!).sort((x, y) => x - y);
      console.warn(
        `slow senders: ${kind} tricklers closed after ${closed[0]}–${closed.at(-1)} ms (limit ${limit} ms)`,
      );
      expect(mine.every((t) => t.received.startsWith("HTTP/1.1 408"))).toBe(true);
      // Not before the limit (a trickler opened at `opened` at the latest), not long after it.
      expect(closed[0]).toBeGreaterThanOrEqual(limit - 100);
      expect(closed.at(-1)).toBeLessThan(opened + limit + 3 * CHECK_INTERVAL_MS + 1_000);
    }
  }, 40_000);
});
