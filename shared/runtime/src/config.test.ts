import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BaseConfig, portField, readConfig, ServiceConfig } from "./config.ts";

const Config = ServiceConfig.extend({
  port: portField(8081).meta({ env: ["OWN_PORT", "PORT"] }),
  label: z.string().optional().meta({ env: "OWN_LABEL" }),
});
const secret = { SIFT_INTERNAL_SECRET: "s".repeat(32) };

describe("readConfig", () => {
  it("reads each field from the variable its meta names, the shared ones under the same names everywhere", () => {
    const config = readConfig(Config, {
      ...secret,
      OWN_PORT: "9000",
      OWN_LABEL: "blue",
      REDIS_URL: "redis://redis:6379",
      LOG_LEVEL: "warn",
      SIFT_SHUTDOWN_DRAIN_MS: "250",
    });
    expect(config).toMatchObject({
      port: 9000,
      label: "blue",
      redisUrl: "redis://redis:6379",
      logLevel: "warn",
      shutdownDrainMs: 250,
      redisCommandTimeoutMs: 1_000,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it("takes the first of a field's variables that is set, and reads an empty one as unset", () => {
    expect(readConfig(Config, { ...secret, PORT: "7000" }).port).toBe(7000);
    expect(readConfig(Config, { ...secret, OWN_PORT: "", PORT: "7000" }).port).toBe(7000);
    expect(readConfig(Config, { ...secret, OWN_PORT: "", LOG_LEVEL: "" })).toMatchObject({
      port: 8081,
      logLevel: "info",
    });
  });

  it("says what SIFT_INTERNAL_SECRET needs whether it is short or missing", () => {
    for (const env of [{ SIFT_INTERNAL_SECRET: "short" }, {}])
      expect(() => readConfig(Config, env)).toThrow(/SIFT_INTERNAL_SECRET must be at least 32 characters/);
  });

  it("refuses a field that names no variable", () => {
    const Unnamed = BaseConfig.extend({ stray: z.string().optional() });
    expect(() => readConfig(Unnamed, {})).toThrow("config field stray names no environment variable");
  });
});
