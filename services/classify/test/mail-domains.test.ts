import { createSocket, type Socket } from "node:dgram";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { SPAM_STANDARD, type NormalizedField, type Reason } from "@sift/contracts";
import { silentLogger } from "@sift/runtime";
import {
  createKey,
  post,
  startScoringStack,
  startTestDns,
  type ScoringStack,
  type TestDns,
} from "@sift/testkit";
import { acceptsMail, MailDomains, UNREACHABLE_WEIGHT } from "../src/clients/mail-domains.ts";

/**
 * The sender's e-mail domain check (SIFT_EMAIL_DNS) against a real DNS server (Debian's
 * dnsmasq on a free port), and through the real gateway, classify service and model worker.
 */
let dns: TestDns;
/** A resolver that never answers: a UDP socket that reads and says nothing. */
let silent: Socket;
let silentServer: string;

beforeAll(async () => {
  dns = await startTestDns({
    suffix: "test",
    mx: { "shop.test": "mx.shop.test" },
    txt: { "nomail.test": "v=spf1 -all" },
    a: { "mx.shop.test": "127.0.0.2", "bare.test": "127.0.0.3" },
  });
  silent = createSocket("udp4");
  await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
  silentServer = `127.0.0.1:${silent.address().port}`;
});
afterAll(async () => {
  await dns?.stop();
  silent?.close();
});

const clock = { now: () => Date.now() };
const form = (email: string): NormalizedField[] => [
  ["name", "Ann Lee"],
  ["email", email],
  ["message", "Hello, is the oak table still for sale?"],
];

describe("a sender's domain", () => {
  it("receives mail with an MX, or an address and no MX; cannot when it does not exist or has neither", async () => {
    const domains = new MailDomains({
      settings: { budgetMs: 500, servers: [dns.server] },
      clock,
      logger: silentLogger(),
    });
    const answer = async (email: string) => (await domains.check(form(email)))?.answer;
    expect(await answer("ann@shop.test")).toBe("receives");
    expect(await answer("ann@bare.test")).toBe("receives");
    expect(await answer("ann@nowhere.test")).toBe("unreachable");
    expect(await answer("ann@nomail.test")).toBe("unreachable");
    // No sender address, or one no resolver could be asked about: nothing to check.
    expect(domains.check([["message", "hello"]])).toBeNull();
    expect(domains.check(form("ann@localhost"))).toBeNull();
  });

  it("is answered from its cache once known, with the DNS server gone", async () => {
    const zone = await startTestDns({ suffix: "test", mx: { "kept.test": "mx.kept.test" } });
    const domains = new MailDomains({
      settings: { budgetMs: 500, servers: [zone.server] },
      clock,
      logger: silentLogger(),
    });
    expect((await domains.check(form("a@kept.test")))?.answer).toBe("receives");
    expect((await domains.check(form("a@gone.test")))?.answer).toBe("unreachable");
    await zone.stop();
    expect((await domains.check(form("b@kept.test")))?.answer).toBe("receives");
    expect((await domains.check(form("b@gone.test")))?.answer).toBe("unreachable");
  });

  it("never holds a call past its budget when the resolver does not answer", async () => {
    const domains = new MailDomains({
      settings: { budgetMs: 25, servers: [silentServer] },
      clock,
      logger: silentLogger(),
    });
    const started = performance.now();
    expect((await domains.check(form("ann@shop.test")))?.answer).toBe("unknown");
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(24);
    // Timer slack on a loaded machine, never the resolver's own 1.5 s time-out.
    expect(waited).toBeLessThan(500);
  });
});

describe("the check through the stack", () => {
  let scoring: ScoringStack;
  beforeAll(async () => {
    scoring = await startScoringStack({
      redisUrl: inject("redisUrl"),
      mailDomains: { budgetMs: 500, servers: [dns.server] },
    });
  });
  afterAll(() => scoring?.stop());

  const classify = async (secretKey: string, email: string) => {
    const reply = await post(
      `${scoring.stack.gatewayUrl}/classify?explain=1`,
      { content: Object.fromEntries(form(email)), model: SPAM_STANDARD },
      { authorization: `Bearer ${secretKey}` },
    );
    expect(reply.status).toBe(200);
    return reply.json as { label: string; score: number; reasons: Reason[] };
  };
  const logit = (p: number) => Math.log(p / (1 - p));

  it("adds email_domain_unreachable for a sender whose domain takes no mail, and nothing for one that does", async () => {
    const key = await createKey(scoring.stack.keystore, { kind: "classify" });
    const honest = await classify(key.secretKey, "ann@shop.test");
    expect(honest.reasons.map((r) => r.signal)).not.toContain("email_domain_unreachable");
    const madeUp = await classify(key.secretKey, "ann@nowhere.test");
    // Its honest twin: a visitor who mistyped their address is not spam for it alone.
    expect(madeUp.label).toBe("clean");
    expect(madeUp.reasons).toContainEqual({
      signal: "email_domain_unreachable",
      label: "nowhere.test cannot receive mail",
      weight: UNREACHABLE_WEIGHT,
    });
    // The same message from a domain that takes mail: the model's score (whose address words
    // differ a little between the two domains) moved by the signal's weight.
    const base = await classify(key.secretKey, "ann@bare.test");
    expect(Math.abs(logit(madeUp.score) - logit(base.score) - UNREACHABLE_WEIGHT)).toBeLessThan(0.3);
  });
});

describe("a null MX (RFC 7505)", () => {
  it("says the domain takes no mail, and any real exchange that it does", () => {
    expect(acceptsMail([{ exchange: "" }])).toBe(false);
    expect(acceptsMail([{ exchange: "." }])).toBe(false);
    expect(acceptsMail([{ exchange: "mx.shop.test" }])).toBe(true);
    expect(acceptsMail([{ exchange: "" }, { exchange: "mx.shop.test" }])).toBe(true);
  });
});
