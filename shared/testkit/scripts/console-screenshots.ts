// Screenshots of the console for docs/console.md: starts Redis and NATS on free ports, the stack
// in-process (startStack), makes a workspace with a few configurations and list entries, signs in
// with Chromium and saves one PNG per screen into docs/console/ (light, and the sites screen dark).
//   pnpm --filter @sift/console screenshots
import { mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { AccountStore } from "@sift/console/accounts";
import { ReportStore } from "@sift/feedback";
import { RedisUsageMeter, RefusalCounter } from "@sift/keystore";
import {
  freePort,
  post,
  spawnLocalServer,
  startModelWorker,
  startStack,
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  ROOT,
} from "@sift/testkit";

const out = `${ROOT}docs/console`;
mkdirSync(out, { recursive: true });
const [redisPort, natsPort] = [await freePort(), await freePort()];
const servers = [await spawnLocalServer("redis", redisPort), await spawnLocalServer("nats", natsPort)];
const stack = await startStack({
  redisUrl: `redis://127.0.0.1:${redisPort}`,
  natsUrl: `nats://127.0.0.1:${natsPort}`,
});
// A model worker, so the verdicts the screens show are real classify calls' (and a review's new score real).
const worker = await startModelWorker(`nats://127.0.0.1:${natsPort}`, undefined, {
  redisUrl: `redis://127.0.0.1:${redisPort}`,
});
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
try {
  const workspace = await stack.keystore.createWorkspace({ name: "Acme shop", plan: "free" });
  await stack.keystore.createWorkspace({ name: "Acme blog", plan: "paid" });
  const challenge = await stack.keystore.createConfig(workspace.id, "challenge");
  const classifyKey = (await stack.keystore.createConfig(workspace.id, "classify"))!;
  await stack.keystore.updateWorkspace(workspace.id, { rateLimit: 1_000, burst: 1_000, logPrivacy: "full" });
  const lists = new ReportStore({ redis: stack.redis });
  await lists.updateList(
    workspace.id,
    "add",
    {
      kind: "block",
      type: "domain",
      value: "cheap-pills.example",
    },
    "ann@acme.example",
  );
  await lists.updateList(
    workspace.id,
    "add",
    { kind: "block", type: "phrase", value: "crypto giveaway" },
    "bob@acme.example",
  );
  await lists.updateList(
    workspace.id,
    "add",
    { kind: "allow", type: "email", value: "ceo@acme.example" },
    "CLI",
  );
  // Thirty days of traffic for the usage chart: counted calls and a few 429s, on a clock set back.
  const day = 86_400_000;
  const at = { t: Date.now() };
  const clock = { now: () => at.t };
  const meter = new RedisUsageMeter({ redis: stack.redis, clock });
  const refusals = new RefusalCounter({ redis: stack.redis, clock });
  for (let back = 29; back >= 0; back--) {
    at.t = Date.now() - back * day;
    const calls = 8 + Math.round(6 * Math.sin(back / 2) + (back % 7 === 3 ? 14 : 0));
    for (let i = 0; i < calls; i++) await meter.admit(workspace);
    if (back % 5 === 1) await refusals.count(workspace.id, "rate_limited");
  }
  // Verdicts for Overview, Submissions and Review: real POST /classify calls through the gateway,
  // one of them written to attack the console (shown as text, its bidi override as an escape).
  const submissions = [
    {
      name: "Maria",
      email: "maria@example.org",
      message: "Do you deliver to Lisbon? I would like two of the oak chairs.",
    },
    {
      name: "SEO Pro",
      email: "seo@rank-first.example",
      message:
        "Buy 10,000 backlinks for $5!!! First page on Google guaranteed, visit https://rank-first.example/offer",
    },
    {
      name: "Tom",
      email: "tom@example.net",
      message: "Hi, my order 4471 has not arrived yet. Could you check? Thanks",
    },
    {
      name: "Crypto",
      email: "win@giveaway.example",
      message: "Crypto giveaway: send 0.1 BTC and get 1 BTC back, today only https://bit.ly/x",
    },
    {
      name: "Lena",
      email: "lena@example.com",
      message: "Can I change the colour of my order before it ships?",
    },
    {
      name: "<script>alert(1)</script>",
      email: "x@evil.example",
      message: "Your invoice: invoice\u202Efdp.exe <img src=x onerror=alert(1)> javascript:alert(1)",
    },
    {
      name: "Marketing",
      email: "hello@leads.example",
      message: "We can bring you 500 new customers a month, reply for a free audit of your website",
    },
    { name: "Jo", email: "jo@example.org", message: "Is the shop open on Saturday afternoon?" },
  ];
  for (let round = 0; round < 3; round++) {
    for (const content of submissions) {
      await post(
        `${stack.gatewayUrl}/classify`,
        {
          content: round === 0 ? content : { ...content, name: `${content.name} ${round}` },
          model: "spam-standard",
        },
        { authorization: `Bearer ${classifyKey.secretKey}` },
      );
    }
  }
  await new Promise((r) => setTimeout(r, 500));
  const accounts = new AccountStore({ redis: stack.redis, clock: stack.clock });
  await accounts.addUser({ email: "ops@acme.example", password: "screenshots only 123", operator: true });
  for (const [email, role] of [
    ["ann@acme.example", "owner"],
    ["bob@acme.example", "editor"],
    ["cy@acme.example", "viewer"],
  ] as const) {
    const member = await accounts.addUser({ email, password: "screenshots only 123", operator: false });
    await accounts.setRole(workspace.id, member!.id, role);
  }

  const base = `${stack.gatewayUrl}/console`;
  // Desktop at 1280 px; the phone shots (issue 41) at 390 px, a common phone's CSS width.
  const shoot = async (
    scheme: "light" | "dark",
    name: string,
    go: (page: import("playwright-core").Page) => Promise<void>,
    fullPage = false,
    width = 1280,
  ) => {
    const context = await browser.newContext({
      viewport: { width, height: width < 600 ? 844 : 720 },
      colorScheme: scheme,
      ...(width < 600 ? { deviceScaleFactor: 1, isMobile: true, hasTouch: true } : {}),
    });
    const page = await context.newPage();
    await page.goto(`${base}/sign-in`);
    if (name !== "sign-in") {
      await page.fill("#email", "ops@acme.example");
      await page.fill("#password", "screenshots only 123");
      await Promise.all([page.waitForURL(`${base}/`), page.click("button[type=submit]")]);
    }
    await go(page);
    await page.screenshot({ path: `${out}/${name}.png`, fullPage });
    await context.close();
    console.warn(`docs/console/${name}.png`);
  };
  const ws = `${base}/w/${workspace.id}`;
  await shoot("light", "sign-in", async () => {});
  await shoot("light", "workspaces", async () => {});
  await shoot(
    "light",
    "overview",
    async (p) => {
      await p.goto(`${ws}/overview?period=24h`);
      await p.waitForSelector(".chart canvas");
    },
    true,
  );
  await shoot("light", "submissions", async (p) => void (await p.goto(`${ws}/submissions`)), true);
  const hostile = (await stack.verdicts.list(workspace.id, { filter: { text: "invoice" } })).verdicts.at(-1);
  if (hostile) {
    await shoot(
      "light",
      "submission",
      async (p) => void (await p.goto(`${ws}/submissions/${hostile.id}`)),
      true,
    );
  }
  await shoot(
    "light",
    "review",
    async (p) => {
      await p.goto(`${ws}/review?min=&max=`);
      await p.click("button[name=one][value^='clean:']");
      await p.waitForSelector(".rescored", { timeout: 10_000 }).catch(() => undefined);
    },
    true,
  );
  await shoot("light", "sites", async (p) => void (await p.goto(`${ws}/sites`)));
  await shoot("dark", "sites-dark", async (p) => void (await p.goto(`${ws}/sites`)));
  await shoot("light", "secret-once", async (p) => {
    await p.goto(`${ws}/sites`);
    await p.selectOption("#kind", "challenge");
    await p.click("text=Create configuration");
    await p.waitForSelector("#secret");
  });
  await shoot(
    "light",
    "configuration",
    async (p) => void (await p.goto(`${ws}/sites/${challenge!.config.id}`)),
  );
  await shoot("light", "lists", async (p) => void (await p.goto(`${ws}/lists`)));
  await shoot(
    "light",
    "usage",
    async (p) => {
      await p.goto(`${ws}/usage`);
      await p.waitForSelector(".chart canvas");
    },
    true,
  );
  await shoot("light", "audit", async (p) => void (await p.goto(`${ws}/audit`)));
  await shoot("light", "members", async (p) => {
    await p.goto(`${ws}/members`);
    await p.fill("#invite-email", "new.hire@acme.example");
    await p.selectOption("#invite-role", "editor");
    await p.click("text=Create invitation link");
    await p.waitForSelector("#invite-link");
    await p.goto(`${ws}/members`);
  });
  await shoot("light", "account", async (p) => void (await p.goto(`${base}/account`)));
  // At phone width: the queue's stacked rows, a submission, the menu open, sign-in.
  await shoot(
    "light",
    "phone-review",
    async (p) => void (await p.goto(`${ws}/review?min=&max=`)),
    false,
    390,
  );
  await shoot(
    "light",
    "phone-submissions",
    async (p) => void (await p.goto(`${ws}/submissions`)),
    false,
    390,
  );
  if (hostile) {
    await shoot(
      "light",
      "phone-submission",
      async (p) => void (await p.goto(`${ws}/submissions/${hostile.id}`)),
      false,
      390,
    );
  }
  await shoot(
    "light",
    "phone-menu",
    async (p) => {
      await p.goto(`${ws}/overview`);
      await p.click("summary >> text=Menu");
    },
    false,
    390,
  );
  await shoot("light", "phone-sign-in", async () => {}, false, 390);
} finally {
  await browser.close();
  await worker.stop();
  await stack.stop();
  for (const server of servers) server.kill("SIGTERM");
}
