import { describe, expect, it } from "vitest";
import {
  inferenceQueue,
  inferenceSubject,
  InferenceFailure,
  ModelToken,
  WorkerFailure,
} from "./inference.ts";
import { MODEL_NAMES } from "./messages.ts";

describe("models on the wire", () => {
  it("gives every valid name a subject and queue group of its own (each name one NATS token)", () => {
    for (const name of MODEL_NAMES) expect(ModelToken.safeParse(name).success).toBe(true);
    expect(new Set(MODEL_NAMES.map(inferenceSubject)).size).toBe(MODEL_NAMES.length);
    expect(inferenceSubject("spam-standard")).toBe("sift.inference.v1.spam-standard");
    expect(inferenceQueue("spam-standard")).not.toBe(inferenceQueue("spam-other"));
    expect(ModelToken.safeParse("spam.standard").success).toBe(false);
    expect(ModelToken.safeParse("spam-*").success).toBe(false);
  });

  it("has one closed set of failures, the worker's replies among them", () => {
    for (const failure of WorkerFailure.options) expect(InferenceFailure.options).toContain(failure);
    expect(InferenceFailure.options).not.toContain("shutting_down");
  });
});
