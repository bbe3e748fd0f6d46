import { Resolver } from "node:dns/promises";
import type { NormalizedField, Reason } from "@sift/contracts";
import { senderAddress } from "@sift/network";
import { logFailure, type Clock, type Logger } from "@sift/runtime";

/**
 * The sender's domain, optionally (DESIGN: e-mail domain check; issue 59 part 5): can the domain
 * of the address a visitor left receive mail at all? A domain with no MX record falls back to its
 * address records (RFC 5321's implicit MX); a domain that does not exist, has a null MX (RFC
 * 7505) or has neither MX nor address cannot, and that is the signal `email_domain_unreachable`.
 * The lookup goes through the deployment's own resolver, runs beside the model's request, and
 * is cached per domain. It never delays a verdict past its budget: past it the verdict goes on
 * without it, while the lookup finishes in the background for the next call from that domain.
 */

/** What a domain's records say of its mail: `unknown` when the resolver gave no answer. */
export type MailAnswer = "receives" | "unreachable" | "unknown";

export interface MailDomainSettings {
  /** How long a call waits for an uncached domain, from the moment the check starts (ms). */
  budgetMs: number;
  /** Resolvers to ask (`host` or `host:port`); absent: the system's (/etc/resolv.conf). */
  servers?: readonly string[] | undefined;
}

/** Log-odds added for a sender whose domain cannot receive mail. */
export const UNREACHABLE_WEIGHT = 1.5;
/** An answer is kept a day, no answer (time-out, server failure) an hour (DESIGN). */
const ANSWER_TTL_MS = 24 * 3_600_000;
const NO_ANSWER_TTL_MS = 3_600_000;
/** Domains kept at most; the oldest entry goes first. ~100 bytes each: about 10 MB. */
const MAX_DOMAINS = 100_000;
/** The resolver's own bound on one lookup (two tries of 1.5 s), well past any call's budget. */
const RESOLVER_TIMEOUT_MS = 1_500;
/** A host name as DNS allows it: labels of letters, digits and hyphens, one dot at least. */
const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const codeOf = (err: unknown): string | undefined =>
  typeof err === "object" && err !== null && "code" in err
    ? String((err as { code: unknown }).code)
    : undefined;

/** Whether a domain's MX records take mail: not when its only exchange is the null MX ("."). */
export const acceptsMail = (exchanges: readonly { exchange: string }[]): boolean =>
  exchanges.some((mx) => mx.exchange !== "" && mx.exchange !== ".");

export class MailDomains {
  readonly #resolver: Resolver;
  readonly #budgetMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #cache = new Map<string, { answer: MailAnswer; until: number }>();
  readonly #pending = new Map<string, Promise<MailAnswer>>();

  constructor(deps: { settings: MailDomainSettings; clock: Clock; logger: Logger }) {
    this.#resolver = new Resolver({ timeout: RESOLVER_TIMEOUT_MS, tries: 2 });
    if (deps.settings.servers && deps.settings.servers.length > 0)
      this.#resolver.setServers([...deps.settings.servers]);
    this.#budgetMs = deps.settings.budgetMs;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  /**
   * The sender's domain and what its records say, within the budget from now; null when the form
   * gives no sender address (or one whose domain no resolver could be asked about).
   */
  check(fields: readonly NormalizedField[]): Promise<{ domain: string; answer: MailAnswer }> | null {
    const address = senderAddress(fields);
    if (!address) return null;
    const domain = address.slice(address.lastIndexOf("@") + 1).replace(/\.$/, "");
    if (!DOMAIN.test(domain)) return null;
    const now = this.#clock.now();
    const cached = this.#cache.get(domain);
    if (cached && cached.until > now) return Promise.resolve({ domain, answer: cached.answer });
    let lookup = this.#pending.get(domain);
    if (!lookup) {
      lookup = this.#lookup(domain).then((answer) => {
        this.#remember(domain, answer);
        this.#pending.delete(domain);
        return answer;
      });
      this.#pending.set(domain, lookup);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ domain, answer: "unknown" }), this.#budgetMs);
      timer.unref();
      void lookup.then((answer) => {
        clearTimeout(timer);
        resolve({ domain, answer });
      });
    });
  }

  /** MX first; with none, an address record (implicit MX); a null MX or no domain: unreachable. */
  async #lookup(domain: string): Promise<MailAnswer> {
    try {
      const exchanges = await this.#resolver.resolveMx(domain);
      if (exchanges.length === 0) return await this.#addressed(domain);
      return acceptsMail(exchanges) ? "receives" : "unreachable";
    } catch (err) {
      const code = codeOf(err);
      if (code === "ENOTFOUND") return "unreachable";
      if (code === "ENODATA") return this.#addressed(domain);
      return this.#unanswered(domain, err);
    }
  }

  async #addressed(domain: string): Promise<MailAnswer> {
    for (const resolve of [
      (d: string) => this.#resolver.resolve4(d),
      (d: string) => this.#resolver.resolve6(d),
    ]) {
      try {
        if ((await resolve(domain)).length > 0) return "receives";
      } catch (err) {
        const code = codeOf(err);
        if (code !== "ENODATA" && code !== "ENOTFOUND") return this.#unanswered(domain, err);
      }
    }
    return "unreachable";
  }

  #unanswered(domain: string, err: unknown): MailAnswer {
    logFailure(this.#logger, err, { domain }, "e-mail domain lookup gave no answer");
    return "unknown";
  }

  #remember(domain: string, answer: MailAnswer): void {
    this.#cache.delete(domain);
    if (this.#cache.size >= MAX_DOMAINS) this.#cache.delete(this.#cache.keys().next().value!);
    const ttl = answer === "unknown" ? NO_ANSWER_TTL_MS : ANSWER_TTL_MS;
    this.#cache.set(domain, { answer, until: this.#clock.now() + ttl });
  }
}

/** The log-odds term and reason a check's answer adds to a verdict (none unless unreachable). */
export const mailDomainSignal = (
  checked: { domain: string; answer: MailAnswer } | null,
): { term: number; reason?: Reason } =>
  checked?.answer === "unreachable"
    ? {
        term: UNREACHABLE_WEIGHT,
        reason: {
          signal: "email_domain_unreachable",
          label: `${checked.domain} cannot receive mail`,
          weight: UNREACHABLE_WEIGHT,
        },
      }
    : { term: 0 };
