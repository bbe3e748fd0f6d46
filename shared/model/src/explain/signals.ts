/**
 * The reasons' vocabulary for the form signals (features/signals/): each signal the featuriser
 * can fire, as a short stable code (what the console's chips key on) and the words a person
 * reads. docs/feedback.md lists the same set; a new signal without an entry here is explained
 * by its raw name, so nothing is ever dropped.
 */
const FIXED: Record<string, readonly [code: string, label: string]> = {
  "name:link": ["name_link", "a link in the name field"],
  "name:at-sign": ["name_at_sign", "an @ in the name field"],
  "name:brand-word": ["name_business", "a business or keyword where a name should be"],
  "name:listed-phrase": ["name_listed_phrase", "a listed spam phrase in the name"],
  "name:many-words": ["name_long", "more words than a person's name has"],
  "name:digits": ["name_digits", "digits in the name"],
  "name:capitals": ["name_capitals", "a name in capitals"],
  "email:disposable": ["disposable_email", "e-mail on a throw-away domain"],
  "email:digits": ["email_digits", "digits in the e-mail address"],
  "email:unrelated-to-name": ["email_unrelated", "an e-mail address unlike the name"],
  "link:html": ["link_html", "HTML link markup"],
  "link:bbcode": ["link_bbcode", "BBCode link markup"],
  "link:bare": ["link_bare", "a bare domain name"],
  "link:share>50%": ["link_heavy", "mostly links"],
  "link:share>20%": ["link_heavy", "much of the text is links"],
  "link:3+": ["many_links", "three or more links"],
  "link:tld:cheap": ["link_cheap_tld", "a link on a cheap top-level domain"],
  "link:tld:country": ["link_country_tld", "a link on a country top-level domain"],
  "link:tld:generic": ["link_generic_tld", "a link on a .com-like domain"],
  "link:tld:other": ["link_other_tld", "a link on an unusual top-level domain"],
  "link:shortener": ["url_shortener", "link to a URL shortener"],
  "link:listed": ["listed_site", "link to a listed spam site"],
  money: ["money", "an amount of money"],
  discount: ["discount", "a discount or coupon"],
  "price-words": ["price_words", "price words (cheap, affordable, pricing)"],
  praise: ["generic_praise", "generic praise (“great post”)"],
  "praise+link": ["generic_praise", "generic praise followed by a link"],
  shouting: ["shouting", "written in capitals"],
  "punctuation-run": ["punctuation_run", "runs of !!! or ???"],
  repetition: ["repetition", "the same words over and over"],
  "phone:toll-free": ["tollfree_phone", "toll-free helpline number"],
  "phone:listed": ["listed_phone", "a listed spam phone number"],
  "phone:with-support-words": ["support_phone", "a phone number beside support words"],
  phone: ["phone", "a phone number"],
  gibberish: ["gibberish", "letters that form no words"],
  "long-token": ["long_token", "a very long unbroken word"],
  "support-words": ["support_words", "tech-support or helpline words"],
  "probe:sql": ["injection_probe", "an SQL injection payload"],
  "probe:script": ["injection_probe", "a script injection payload"],
  "probe:template": ["injection_probe", "a template or lookup injection payload"],
  "probe:path": ["injection_probe", "a path traversal payload"],
  "probe:command": ["injection_probe", "a shell command payload"],
  mash: ["keyboard_mash", "keyboard mash, not words"],
  "brand:sender": ["brand_impersonation", "a brand named as the sender, writing from another domain"],
  "brand:links-elsewhere": [
    "brand_link_elsewhere",
    "a brand named beside the reader's account, its links on other domains",
  ],
  "lookalike:brand": ["lookalike_domain", "a look-alike of a brand's domain"],
  "lookalike:security-words": ["lookalike_domain", "a domain of account or security words strung together"],
  "sender:links-elsewhere": ["sender_links_elsewhere", "links to sites other than the sender's own domain"],
  "freemail:company": ["freemail_company", "a company's name with a free e-mail address"],
  "offer:your-site": ["offer_to_your_site", "an offer for your site or business, with a call to action"],
  "phish:account-threat": ["account_threat", "your account, card or parcel said to be blocked or waiting"],
  "money:back": ["money_back", "pays more than the price and asks the rest sent on (overpayment)"],
  "random-string": ["random_string", "random letters and digits"],
  profanity: ["profanity", "profanity (a listed swear word, in any of 24 languages)"],
};

/**
 * The code and label of a fired signal. `listed` is the first listed phrase found, for the
 * phrase-list signals, so the label can name it.
 */
export const describeSignal = (signal: string, listed?: string): { code: string; label: string } => {
  const fixed = FIXED[signal];
  if (fixed) return { code: fixed[0], label: fixed[1] };
  const [kind, level] = signal.split(":");
  if (kind === "outreach") {
    const elements = level === "3" ? "3 or more" : level;
    return { code: "seo_pitch", label: `SEO or marketing pitch (${elements} elements)` };
  }
  if (kind === "lures") {
    const ideas = level === "3" ? "3 or more" : level;
    return { code: "spam_lures", label: `spam lures: easy money, click here, a prize, urgency (${ideas})` };
  }
  if (kind === "wp-phrases") {
    return {
      code: "listed_phrase",
      label: listed ? `listed phrase: ${listed}` : "listed comment-spam phrase",
    };
  }
  if (kind === "campaign") {
    if (level === "phrase")
      return {
        code: "known_campaign",
        label: listed
          ? `a known form-spam campaign's words: ${listed}`
          : "a known form-spam campaign's words",
      };
    const terms = signal.endsWith(":2") ? "2 or more" : "1";
    return {
      code: "campaign_terms",
      label: listed
        ? `a known form-spam campaign's term: ${listed}`
        : `known form-spam campaign terms (${terms})`,
    };
  }
  if (kind === "sa") {
    // Featuriser 7: SpamAssassin's body rules, one signal per family (signals/spamassassin.ts).
    return {
      code: "spamassassin_rule",
      label: `a SpamAssassin body rule matched (${(level ?? "other").replace(/_/g, " ")})`,
    };
  }
  if (kind === "se-keywords") {
    return {
      code: "listed_keyword",
      label: listed ? `listed spam keyword: ${listed}` : "listed spam keyword",
    };
  }
  return { code: signal.replace(/[^a-z0-9]+/gi, "_"), label: signal };
};
