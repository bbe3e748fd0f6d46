import { describe, expect, it } from "vitest";
import { httpLimits, loadConfig } from "./config.ts";

const secret = { SIFT_INTERNAL_SECRET: "x".repeat(32) };

describe("gateway limits against slow senders", () => {
  it("defaults to 10 s for headers, 30 s for a request, 10,000 connections, checked every second", () => {
    expect(httpLimits(loadConfig(secret))).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 10_000,
      checkIntervalMs: 1_000,
    });
  });

  it("reads them from the environment", () => {
    const config = loadConfig({
      ...secret,
      SIFT_HEADERS_TIMEOUT_MS: "5000",
      SIFT_REQUEST_TIMEOUT_MS: "20000",
      SIFT_MAX_CONNECTIONS: "2000",
    });
    expect(httpLimits(config)).toMatchObject({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 20_000,
      maxConnections: 2_000,
    });
  });

  it("refuses a headers time-out longer than the request time-out", () => {
    expect(() => loadConfig({ ...secret, SIFT_HEADERS_TIMEOUT_MS: "40000" })).toThrow(
      /SIFT_HEADERS_TIMEOUT_MS must not exceed SIFT_REQUEST_TIMEOUT_MS/,
    );
  });
});
