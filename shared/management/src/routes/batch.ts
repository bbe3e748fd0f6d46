import { BatchRequest } from "@sift/contracts";
import { parseWith, ok } from "../context.ts";
import { operation, type ApiRoute } from "../route.ts";

/**
 * Operations of one batch run this many at a time: enough to keep Redis busy from one call
 * (each operation is a few round trips of ~75 µs), few enough that one batch cannot take every
 * connection's turn from the classify and verify calls the gateway also serves.
 */
export const BATCH_CONCURRENCY = 8;

/** The batch route; `run` is the dispatcher, given by the API so an operation runs exactly as alone. */
export const batchRoute = (
  run: (
    caller: Parameters<ApiRoute["handle"]>[0]["caller"],
    op: BatchRequest["operations"][number],
  ) => Promise<{
    status: number;
    body: unknown;
  }>,
): ApiRoute => ({
  ...operation("POST /v1/batch"),
  write: false,
  handle: async (call) => {
    const input = parseWith(BatchRequest, call.body);
    if (!input.ok) return input.answer;
    const operations = input.value.operations;
    const results: Array<{ status: number; body: unknown }> = new Array(operations.length);
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < operations.length; i = next++) {
        const op = operations[i]!;
        // A batch inside a batch would multiply the bound: refused as a path of its own.
        results[i] =
          op.path.split("?")[0] === "/v1/batch"
            ? {
                status: 400,
                body: { ok: false, message: "A batch cannot contain /v1/batch", code: "invalid" },
              }
            : await run(call.caller, op);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, operations.length) }, lane));
    return ok({ results });
  },
});
