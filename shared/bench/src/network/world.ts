import type { NormalizedField } from "@sift/contracts";
import { loadSource, SOURCES, type SourceName } from "@sift/training";
import { seededRandom } from "@sift/training";

/**
 * The multi-site replay's traffic (issue 37): every message is a real row of ../shared/data, and
 * every spread is synthetic: which sites get what, when, and how campaigns vary. Deterministic
 * for a seed, so runs compare.
 */
export type Kind = "ham" | "campaign" | `trap:${TrapName}`;
export const TRAPS = [
  "same question on many sites",
  "one person asks ten shops",
  "newsletter or press release",
  "short generic reply",
  "links to popular domains",
  "agency test message",
  "translations of one message",
  "same question, each in their own words",
] as const;
export type TrapName = (typeof TRAPS)[number];

export interface Event {
  t: number;
  site: number;
  fields: NormalizedField[];
  kind: Kind;
  /** A campaign's (or trap's) id: its copies share it. */
  group: number;
  /** The data family the message's text came from: the out-of-sample model is the one without it. */
  family: string;
}

export interface World {
  sites: number;
  events: Event[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;

/**
 * The one seeded generator (mulberry32, @sift/training's seededRandom), so every run of a size
 * replays the same traffic: the same numbers as the copy this file had.
 */
export const rng = (seed: number): (() => number) => seededRandom(seed);

/** A message's text and the family of the data set it came from. */
export interface Text {
  text: string;
  family: string;
}

interface Pools {
  ham: Record<"enquiries" | "comments" | "chat" | "sms", Text[]>;
  spam: Text[];
  shortEnquiries: Text[];
  shortReplies: Text[];
  newsletters: Text[];
  translations: Text[][];
  names: string[];
}

const texts = (dir: string, source: SourceName, label: 0 | 1): Text[] =>
  loadSource(dir, source)
    .filter((r) => r.label === label)
    .map((r) => ({ text: r.text.trim(), family: SOURCES[source].family }))
    .filter((t) => t.text.length >= 2 && t.text.length <= 2_000);

export const loadPools = (dir: string): Pools => {
  const enquiries = texts(dir, "polyai_enquiries", 0);
  const youtubeHam = texts(dir, "youtube_spam", 0);
  const translations = new Map<string, Text[]>();
  const family = SOURCES.multilingual_sms.family;
  for (const r of loadSource(dir, "multilingual_sms")) {
    if (r.label !== 0 || r.text.length < 30) continue;
    translations.set(r.group, [...(translations.get(r.group) ?? []), { text: r.text, family }]);
  }
  const names = [...new Set(loadSource(dir, "youtube_spam").map((r) => r.author ?? ""))].filter((a) => a);
  return {
    ham: {
      enquiries,
      comments: [...youtubeHam, ...texts(dir, "se_comments_applemeta", 0)],
      chat: texts(dir, "tg_spam_umputun", 0),
      sms: texts(dir, "sms_spam", 0),
    },
    spam: [
      "youtube_spam",
      "stackexchange_spam",
      "sms_spam",
      "tg_spam_umputun",
      "instagram_scamspot",
      "janitr_x",
      "designermadsen_spam_email",
    ].flatMap((s) => texts(dir, s as SourceName, 1)),
    shortEnquiries: enquiries.filter((t) => t.text.length <= 80 && t.text.split(/\s+/).length >= 4),
    shortReplies: youtubeHam.filter((t) => t.text.length <= 25),
    // Long honest e-mail: what a newsletter or press release to many sites looks like.
    newsletters: texts(dir, "spamassassin", 0).filter((t) => t.text.length >= 400),
    translations: [...translations.values()].filter((g) => g.length >= 3),
    names,
  };
};

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
/** A random lower-case token of `n` characters, from the seeded generator. */
const token = (r: () => number, n: number) =>
  Array.from({ length: n }, () => "abcdefghijklmnopqrstuvwxyz0123456789"[Math.floor(r() * 36)]).join("");

/** A heavy-tailed reach: most campaigns reach 1-3 sites, a few hundreds (Pareto, α = 1). */
const reach = (r: () => number, sites: number) =>
  Math.min(sites, Math.max(1, Math.floor(1 / (1 - r() * 0.999))));

const person = (r: () => number, names: readonly string[]) => {
  const name = pick(r, names);
  const local =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, ".")
      .replace(/^\.|\.$/g, "") || "user";
  return {
    name,
    email: `${local}${Math.floor(r() * 100)}@${pick(r, ["gmail.com", "yahoo.com", "outlook.com", "web.de"])}`,
  };
};

const TAILS = [
  "Thanks",
  "Regards",
  "Best wishes",
  "Cheers",
  "Have a nice day",
  "Kind regards!!",
  "ok?",
  "pls reply",
];

/**
 * Word swaps as spintax templates write them ({Hi|Hello} {there|friend}): each group's words
 * stand for each other. A copy swaps a word of the template for another of its group.
 */
const SPIN_GROUPS = [
  ["hi", "hello", "hey", "greetings"],
  ["website", "site", "web site", "homepage"],
  ["business", "company", "firm", "brand"],
  ["offer", "provide", "deliver", "give"],
  ["free", "complimentary", "no-cost"],
  ["money", "cash", "income", "profit"],
  ["now", "today", "right away", "immediately"],
  ["get", "receive", "grab", "claim"],
  ["best", "top", "finest", "leading"],
  ["cheap", "affordable", "low-cost", "budget"],
  ["customers", "clients", "buyers", "visitors"],
  ["contact", "reach", "message", "write to"],
  ["click", "tap", "press", "visit"],
  ["help", "assist", "support"],
  ["make", "earn", "generate"],
  ["great", "amazing", "excellent", "awesome"],
  ["want", "wish", "would like"],
  ["please", "kindly", "pls"],
  ["check", "see", "look at", "view"],
  ["new", "fresh", "latest"],
  ["win", "won", "be awarded"],
  ["prize", "reward", "award", "gift"],
  ["service", "services", "solution", "solutions"],
  ["video", "channel", "clip"],
  ["subscribe", "follow", "join"],
];
const SPIN = new Map(SPIN_GROUPS.flatMap((group) => group.map((word) => [word, group] as const)));
const GREETINGS = ["", "Hi, ", "Hello! ", "Good day. ", "Dear owner, ", "Hey there, "];

/** A copy's spin: each word of a group, with this chance, becomes another of its group. */
const spin = (r: () => number, text: string, rate: number): string =>
  text.replace(/\p{L}+/gu, (word) => {
    const group = SPIN.get(word.toLowerCase());
    if (!group || r() >= rate) return word;
    const swap = pick(r, group);
    return word[0] === word[0]!.toUpperCase() ? swap[0]!.toUpperCase() + swap.slice(1) : swap;
  });

/** Sentences in another order (a copy of a campaign that shuffles its paragraphs). */
const reorder = (r: () => number, text: string): string => {
  // A sentence ends at . ! ? or a line break followed by a space: a link's dots are not ends.
  const sentences = text.split(/(?<=[.!?])\s+|\n+/).filter((x) => x.trim() !== "");
  if (sentences.length < 2) return text;
  for (let i = sentences.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [sentences[i], sentences[j]] = [sentences[j]!, sentences[i]!];
  }
  return sentences.map((x) => x.trim()).join(" ");
};

/** How one campaign varies its copies: drawn once per campaign. */
interface Variation {
  /** The chance a spinnable word is swapped in each copy (0: the template's own words). */
  spin: number;
  /** Whether copies shuffle their sentences. */
  reorder: boolean;
  /** Whether copies open with a greeting of their own. */
  greet: boolean;
}

const variationOf = (r: () => number): Variation => ({
  spin: r() < 0.5 ? 0 : 0.3 + 0.5 * r(),
  reorder: r() < 0.3,
  greet: r() < 0.4,
});

/**
 * What campaigns vary between copies: the sender, the digits, sometimes a tail of random text,
 * and, as the campaign's variation says, spun words, the sentences' order and a greeting.
 */
const vary = (r: () => number, text: string, how: Variation, names: readonly string[]): NormalizedField[] => {
  const sender = person(r, names);
  let message = text.replace(/\d/g, () => String(Math.floor(r() * 10)));
  if (how.reorder) message = reorder(r, message);
  if (how.spin > 0) message = spin(r, message, how.spin);
  if (how.greet) message = pick(r, GREETINGS) + message;
  if (r() < 0.4) message += ` ${pick(r, TAILS)} ${token(r, 1 + Math.floor(r() * 7))}`;
  return [
    ["name", sender.name],
    ["email", sender.email],
    ["message", message],
  ];
};

const CAMPAIGN_TLDS = ["com", "net", "info", "xyz", "online", "shop", "top", "ru"];

/**
 * `sites` sites, each with its own family of honest traffic (12 messages a week), campaigns (one
 * per two sites) and each false-positive trap (scaled with the sites), over one week. One
 * campaign in five links a domain that other campaigns of the same operator link too.
 */
export const buildWorld = (pools: Pools, sites: number, seed: number): World => {
  const r = rng(seed);
  const events: Event[] = [];
  let group = 0;
  const families = ["enquiries", "comments", "chat", "sms"] as const;
  for (let site = 0; site < sites; site++) {
    const family = families[site % families.length]!;
    for (let i = 0; i < 12; i++) {
      const sender = person(r, pools.names);
      const said = pick(r, pools.ham[family]);
      events.push({
        t: r() * WEEK,
        site,
        kind: "ham",
        group: -1,
        family: said.family,
        fields: [
          ["name", sender.name],
          ["email", sender.email],
          ["message", said.text],
        ],
      });
    }
  }
  const someSites = (n: number) => {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(n, sites)) chosen.add(Math.floor(r() * sites));
    return [...chosen];
  };

  // A few operators' domains, each linked by several campaigns.
  const operators = Array.from(
    { length: Math.max(2, Math.round(sites / 40)) },
    (_, i) => `${token(r, 6)}-op${i}.${pick(r, CAMPAIGN_TLDS)}`,
  );
  for (let c = 0; c < Math.ceil(sites / 2); c++) {
    const id = ++group;
    const source = pick(r, pools.spam);
    let template = source.text;
    if (!/https?:\/\/|www\./i.test(template)) {
      // Half the campaigns without a link of their own advertise a domain, some an operator's.
      const roll = r();
      if (roll < 0.2) template += ` https://${pick(r, operators)}/${token(r, 4)}`;
      else if (roll < 0.5) template += ` https://${token(r, 7)}-${id}.${pick(r, CAMPAIGN_TLDS)}/`;
    }
    const how = variationOf(r);
    const start = r() * (WEEK - DAY);
    for (const site of someSites(reach(r, sites))) {
      const at = start + r() * 12 * HOUR;
      const copies = 1 + Math.floor(r() * 3);
      for (let k = 0; k < copies; k++)
        events.push({
          t: at + k * r() * HOUR,
          site,
          kind: "campaign",
          group: id,
          family: source.family,
          fields: vary(r, template, how, pools.names),
        });
    }
  }

  const traps = Math.max(2, Math.round(sites / 20));
  const trap = (name: TrapName, n: number, make: (id: number) => Array<Omit<Event, "kind" | "group">>) => {
    for (let i = 0; i < n; i++) {
      const id = ++group;
      for (const e of make(id)) events.push({ ...e, kind: `trap:${name}`, group: id });
    }
  };
  const say = (message: string, sender = person(r, pools.names)): NormalizedField[] => [
    ["name", sender.name],
    ["email", sender.email],
    ["message", message],
  ];
  trap("same question on many sites", traps, () => {
    const q = pick(r, pools.shortEnquiries);
    const start = r() * (WEEK - DAY);
    return someSites(5 + Math.floor(r() * 45)).map((site) => ({
      t: start + r() * 3 * DAY,
      site,
      family: q.family,
      fields: say(q.text),
    }));
  });
  trap("one person asks ten shops", traps, () => {
    const q = pick(r, pools.ham.enquiries);
    const sender = person(r, pools.names);
    const phone = ` You can call me on +44 7700 9${String(Math.floor(r() * 1e5)).padStart(5, "0")}.`;
    const start = r() * (WEEK - DAY);
    return someSites(10).map((site) => ({
      t: start + r() * HOUR,
      site,
      family: q.family,
      fields: say(q.text + phone, sender),
    }));
  });
  trap("newsletter or press release", traps, () => {
    const text = pick(r, pools.newsletters);
    const start = r() * (WEEK - DAY);
    const domain = `https://news.${token(r, 6)}-press.com/issue`;
    return someSites(20 + Math.floor(r() * 180)).map((site) => ({
      t: start + r() * 2 * HOUR,
      site,
      family: text.family,
      fields: [
        ["name", "Newsletter"],
        ["email", "news@press-office.example"],
        ["message", `${text.text} ${domain}`],
      ],
    }));
  });
  trap("short generic reply", traps, () => {
    const text = pick(r, pools.shortReplies);
    return someSites(10 + Math.floor(r() * 90)).map((site) => ({
      t: r() * WEEK,
      site,
      family: text.family,
      fields: say(text.text),
    }));
  });
  trap("links to popular domains", traps, () => {
    const link = pick(r, [
      "https://en.wikipedia.org/wiki/Spam",
      "https://github.com/nodejs/node/issues",
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://stackoverflow.com/questions/11227809",
    ]);
    return someSites(10 + Math.floor(r() * 90)).map((site) => {
      const said = pick(r, pools.ham.comments);
      return { t: r() * WEEK, site, family: said.family, fields: say(`${said.text} ${link}`) };
    });
  });
  trap("agency test message", Math.max(1, Math.round(traps / 2)), () => {
    const start = r() * (WEEK - DAY);
    const text = pick(r, [
      "This is a test message, please ignore it",
      "Testing the new contact form, please ignore",
      "test test test from the web agency",
    ]);
    // Written for the replay, not drawn from a data set: no model was trained on it.
    return someSites(50).map((site) => ({
      t: start + r() * 10 * 60_000,
      site,
      family: "-",
      fields: say(text),
    }));
  });
  trap("translations of one message", traps, () => {
    const group = pick(r, pools.translations);
    const start = r() * (WEEK - DAY);
    return someSites(15).map((site, i) => ({
      t: start + r() * DAY,
      site,
      family: group[i % group.length]!.family,
      fields: say(group[i % group.length]!.text),
    }));
  });
  trap("same question, each in their own words", traps, () => {
    // Honest bulk: one shared need (a product recall, an outage) asked by different people, each
    // starting from the same enquiry and changing a word or two, as people retelling it do.
    const q = pick(r, pools.ham.enquiries);
    const start = r() * (WEEK - DAY);
    return someSites(10 + Math.floor(r() * 40)).map((site) => ({
      t: start + r() * DAY,
      site,
      family: q.family,
      fields: say(spin(r, pick(r, GREETINGS) + q.text, 0.5)),
    }));
  });
  events.sort((a, b) => a.t - b.t);
  return { sites, events };
};
