/**
 * The /v1 loads of `pnpm bench:hosts`'s classify and verify rows (hosts.ts), in its process or,
 * as a control panel runs elsewhere, in a process of its own (hosts-api-load.ts).
 */
import { performance } from "node:perf_hooks";

export type Result = { status: number; body: Record<string, unknown> };
export interface ApiClient {
  call(method: string, path: string, body?: unknown): Promise<Result>;
  batch(operations: unknown[]): Promise<Result[]>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The /v1 loads beside which classify and verify are measured, until stopped. `busy`: a panel
 * provisioning 10 sites a second (a batch of 10 workspaces, one of their 20 configurations, one
 * deleting them) and reading a page of 100 workspaces and one of 10 workspaces' usage a second.
 * `heavy`: each second a batch creating 20 workspaces and one deleting them, and five times a
 * second a page of 1,000 workspaces (walking the directory) and a page of 100 workspaces' usage
 * (about 7,500 Redis reads a second). Returns the calls (a batch is one) and operations made, and
 * the calls that failed.
 */
export type ApiLevel = "busy" | "heavy";
export const apiLoad = (level: ApiLevel, { call, batch }: ApiClient) => {
  let on = true;
  let calls = 0;
  let operations = 0;
  // A call answered other than 200 (a 503 while the management service is starved or restarting):
  // counted, and the lane goes on at its next tick, as a control panel retries.
  let failed = 0;
  const each = async (ms: number, work: () => Promise<void>) => {
    while (on) {
      const t = performance.now();
      await work().catch(() => void failed++);
      await sleep(Math.max(0, ms - (performance.now() - t)));
    }
  };
  const sites = level === "busy" ? 10 : 20;
  let cursor: string | null = null;
  const lanes = [
    each(1000, async () => {
      const made = await batch(
        Array.from({ length: sites }, (_, i) => ({
          method: "POST",
          path: "/v1/workspaces",
          body: { name: `Panel ${i}`, plan: "free" },
        })),
      );
      const ids = made.map((r) => String(r.body["id"]));
      if (level === "busy") {
        await batch(
          ids.flatMap((id) => [
            { method: "POST", path: `/v1/workspaces/${id}/configurations`, body: { kind: "classify" } },
            { method: "POST", path: `/v1/workspaces/${id}/configurations`, body: { kind: "challenge" } },
          ]),
        );
        calls++;
        operations += 2 * sites;
      }
      await batch(ids.map((id) => ({ method: "DELETE", path: `/v1/workspaces/${id}` })));
      calls += 2;
      operations += 2 * sites;
    }),
    each(level === "busy" ? 1000 : 200, async () => {
      const res = await call(
        "GET",
        `/v1/workspaces?limit=${level === "busy" ? 100 : 1000}${cursor ? `&cursor=${cursor}` : ""}`,
      );
      if (res.status !== 200) throw new Error(`a page answered ${res.status}`);
      cursor = res.body["nextCursor"] as string | null;
      const usage = await call("GET", `/v1/usage?limit=${level === "busy" ? 10 : 100}`);
      if (usage.status !== 200) throw new Error(`a usage page answered ${usage.status}`);
      calls += 2;
      operations += 2;
    }),
  ];
  return {
    stop: async () => {
      on = false;
      await Promise.all(lanes);
      return { calls, operations, failed };
    },
  };
};

/** An API client on `baseUrl` with a management token. */
export const apiClient = (baseUrl: string, token: string): ApiClient => {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return {
    call,
    batch: async (operations) => {
      const res = await call("POST", "/v1/batch", { operations });
      if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body["results"] as Result[];
    },
  };
};
