/**
 * Every console page's time through the gateway with issue 27's data: 10 workspaces of 10,000
 * classify submissions each (counted over the last 30 days, with 429s, and in the verdict log:
 * issue 28's screens read it), list entries, a full audit log, several configurations and members. The goal: p95 under 50 ms for every page.
 *
 * Its Redis and NATS are its own servers on free ports (started here, stopped at the end), so
 * nothing it writes touches another Redis. The stack runs in this process (startStack); each
 * time is one request's, measured by the client from sending it to the end of the body, over
 * real HTTP through the gateway, one request at a time, for an operator (who sees every
 * workspace in the switcher, the heaviest frame).
 *
 *   pnpm bench:console            10 workspaces × 10,000 submissions, 200 requests per page
 *   pnpm bench:console --smoke    2 workspaces × 1,000, 10 requests per page (the harness only)
 *   pnpm bench:console --json out.json
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { AccountStore } from "@sift/console/accounts";
import { AuditLog } from "@sift/console/audit";
import { ReportStore } from "@sift/feedback";
import { redisLayout } from "@sift/keystore";
import { DAY, systemClock } from "@sift/runtime";
import { startServer, startStack } from "@sift/testkit";

const { values } = parseArgs({
  options: { smoke: { type: "boolean", default: false }, json: { type: "string" } },
});
const smoke = values.smoke!;
const SIZE = smoke
  ? { workspaces: 2, submissions: 1_000, lists: 20, audit: 50, configs: 3, members: 3, requests: 10 }
  : // Issue 27's size; the list, audit, configuration and member counts are a busy workspace's.
    { workspaces: 10, submissions: 10_000, lists: 300, audit: 1_000, configs: 6, members: 20, requests: 200 };
const GOAL_P95_MS = 50;
const PASSWORD = "bench only, never a real password";

const [redisServer, natsServer] = await Promise.all([startServer("redis"), startServer("nats")]);
const stack = await startStack({ redisUrl: redisServer.url, natsUrl: natsServer.url });

try {
  const { redis, keystore } = stack;
  const layout = redisLayout();
  const clock = systemClock;
  const accounts = new AccountStore({ redis, clock });
  const audit = new AuditLog({ redis, clock });
  const lists = new ReportStore({ redis });

  const started = performance.now();
  const operator = `operator@bench.example`;
  await accounts.addUser({ email: operator, password: PASSWORD, operator: true });
  // Members: a few users (Argon2 is slow on purpose), each a member of every workspace.
  const members = await Promise.all(
    Array.from({ length: SIZE.members }, (_, i) =>
      accounts.addUser({ email: `member${i}@bench.example`, password: PASSWORD, operator: false }),
    ),
  );
  const today = Math.floor(clock.now() / DAY);
  const workspaces: Array<{ id: string; configId: string }> = [];
  for (let w = 0; w < SIZE.workspaces; w++) {
    const ws = await keystore.createWorkspace({ name: `Shop ${w}`, plan: w % 2 ? "paid" : "free" });
    await keystore.updateWorkspace(ws.id, { allowance: SIZE.submissions * 2 });
    const configs = [];
    for (let c = 0; c < SIZE.configs; c++) {
      configs.push((await keystore.createConfig(ws.id, c % 2 ? "classify" : "challenge"))!.config.id);
    }
    // The submissions, as the usage meter counts them: per UTC day over the 30-day window.
    const perDay: Record<string, number> = {};
    for (let s = 0; s < SIZE.submissions; s++) {
      const day = today - (s % 30);
      perDay[day] = (perDay[day] ?? 0) + 1;
    }
    const refused: Record<string, number> = {};
    for (let d = 0; d < 30; d++) {
      refused[`${today - d}:rate_limited`] = 3 * d;
      refused[`${today - d}:quota_exceeded`] = d % 3;
    }
    await redis
      .multi()
      .hset(layout.usage(ws.id), perDay)
      .pexpire(layout.usage(ws.id), 31 * DAY)
      .hset(layout.refusals(ws.id), refused)
      .pexpire(layout.refusals(ws.id), 31 * DAY)
      .exec();
    for (let l = 0; l < SIZE.lists; l++) {
      const type = (["domain", "email", "phrase"] as const)[l % 3]!;
      const value =
        type === "domain" ? `spam${l}.example` : type === "email" ? `x${l}@spam.example` : `cheap pills ${l}`;
      await lists.updateList(ws.id, "add", { kind: l % 4 ? "block" : "allow", type, value });
    }
    await Promise.all(
      Array.from({ length: SIZE.audit }, (_, a) =>
        audit.record(ws.id, {
          actor: `member${a % 5}@bench.example`,
          action: "list.add",
          target: `block phrase cheap pills ${a}`,
        }),
      ),
    );
    for (const [m, member] of members.entries()) {
      await accounts.setRole(ws.id, member!.id, (["viewer", "editor", "owner"] as const)[m % 3]!);
    }
    workspaces.push({ id: ws.id, configId: configs[0]! });
    // The verdict log full (issue 28): one entry per submission over its 14 days, with reasons,
    // redacted content, a list hit in 50 and a review in 100, for Overview, Submissions and Review.
    const settings = { privacy: "redacted", retentionDays: 14, maxEntries: SIZE.submissions } as const;
    for (let start = 0; start < SIZE.submissions; start += 1_000) {
      const entries = [];
      for (let s = start; s < Math.min(SIZE.submissions, start + 1_000); s++) {
        const score = ((s * 37) % 100) / 100;
        entries.push(
          stack.verdicts.encode(
            {
              time: clock.now() - Math.floor(((SIZE.submissions - s) / SIZE.submissions) * 14 * DAY),
              workspaceId: ws.id,
              configId: configs[s % configs.length]!,
              operation: "classify",
              label: score >= 0.5 ? "spam" : "clean",
              score,
              model: "spam-standard",
              reasons: [
                { signal: "word", weight: 0.6, field: "message", label: `“offer${s % 40}”` },
                ...(s % 50 === 0
                  ? [{ signal: "list_block", weight: 4, label: "listed phrase: cheap pills" }]
                  : []),
              ],
              listHits: s % 50 === 0 ? ["listed phrase: cheap pills"] : [],
              fields: [
                ["name", `Sender ${s}`],
                ["email", `sender${s}@example.com`],
                ["message", `Hello, message ${s}: see https://example.com/x${s} for our offer.`],
              ],
            },
            settings,
          ),
        );
      }
      await stack.verdicts.appendEncoded(ws.id, settings, entries);
    }
    const reviewed = (await stack.verdicts.list(ws.id, { limit: 100 })).verdicts;
    for (const v of reviewed)
      await stack.verdicts.review(ws.id, v.id, { state: "spam", by: operator, at: clock.now() });
  }
  console.log(
    `filled in ${((performance.now() - started) / 1000).toFixed(1)} s: ${SIZE.workspaces} workspaces × ${SIZE.submissions.toLocaleString("en")} submissions, ` +
      `${SIZE.lists} list entries, ${SIZE.audit} audit entries, ${SIZE.configs} configurations, ${SIZE.members} members each`,
  );

  // Signs in as a browser would: the sign-in form's CSRF cookie and token, then the session cookie.
  const cookies = new Map<string, string>();
  const request = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(stack.gatewayUrl + path, { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return { status: res.status, text: await res.text() };
  };
  const form = await request("/console/sign-in");
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const signedIn = await request("/console/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ _csrf: csrf, email: operator, password: PASSWORD }).toString(),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);

  // Every page: the start page, then each link of a workspace's navigation and a configuration.
  const first = workspaces[0]!;
  const nav = (await request(`/console/w/${first.id}/sites`)).text;
  const screens = [...new Set([...nav.matchAll(/href="\/console\/w\/[\w-]+\/([\w-]+)"/g)].map((m) => m[1]!))];
  const pages: Array<{ name: string; path: (ws: { id: string; configId: string }) => string }> = [
    { name: "/console/", path: () => "/console/" },
    // The header's link: the user's sessions.
    { name: "/console/account", path: () => "/console/account" },
    ...screens.map((s) => ({
      name: `/console/w/:ws/${s}`,
      path: (ws: { id: string }) => `/console/w/${ws.id}/${s}`,
    })),
    {
      name: "/console/w/:ws/sites/:config",
      path: (ws: { id: string; configId: string }) => `/console/w/${ws.id}/sites/${ws.configId}`,
    },
  ];

  const rows = [];
  for (const page of pages) {
    for (let i = 0; i < 5; i++) await request(page.path(workspaces[i % workspaces.length]!));
    const times: number[] = [];
    for (let i = 0; i < SIZE.requests; i++) {
      const path = page.path(workspaces[i % workspaces.length]!);
      const start = performance.now();
      const answer = await request(path);
      times.push(performance.now() - start);
      if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!;
    rows.push({ page: page.name, n: times.length, p50: at(0.5), p95: at(0.95), max: at(1) });
  }

  const width = Math.max(...rows.map((r) => r.page.length));
  console.log(`\n${"page".padEnd(width)}     n   p50 ms   p95 ms   max ms  goal p95 < ${GOAL_P95_MS} ms`);
  for (const r of rows) {
    console.log(
      `${r.page.padEnd(width)} ${String(r.n).padStart(5)} ${r.p50.toFixed(1).padStart(8)} ${r.p95.toFixed(1).padStart(8)} ${r.max
        .toFixed(1)
        .padStart(8)}  ${r.p95 < GOAL_P95_MS ? "met" : "MISSED"}`,
    );
  }
  if (values.json)
    writeFileSync(values.json, JSON.stringify({ size: SIZE, goalP95Ms: GOAL_P95_MS, rows }, null, 2));
} finally {
  await stack.stop();
  await Promise.all([redisServer.stop(), natsServer.stop()]);
}
