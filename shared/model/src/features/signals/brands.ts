/**
 * The brands phishing borrows most (banks, couriers, payment, mail, social and shopping sites in
 * the languages sites write most), and how to tell one of their own domains from a look-alike.
 * A brand's own domains are those whose registrable label is the brand (paypal.com, paypal.de,
 * dhl.es) or one of the few other labels it serves from (OWN_LABELS); anything else naming the
 * brand (paypal-verify.com, secure.paypal.com.account-id.ru, amazon.top) is not the brand.
 *
 * In text a brand is matched only by names no ordinary word shares ("apple", "chase", "ups",
 * "wise", "meta", "booking" are words first), on the text lower-cased and stripped of accents.
 */

/** Brand names as written in text → the registrable labels of their own domains. */
const TEXT_BRANDS: ReadonlyArray<readonly [names: string, labels: readonly string[]]> = [
  ["paypal", ["paypal", "paypalobjects"]],
  ["amazon", ["amazon", "amazonaws", "amzn"]],
  ["netflix", ["netflix"]],
  [
    "microsoft|office 365|office365|outlook",
    ["microsoft", "office", "office365", "live", "outlook", "microsoftonline"],
  ],
  ["google|gmail|youtube", ["google", "gmail", "youtube", "youtu", "googleusercontent", "googlemail"]],
  ["facebook|instagram|whatsapp", ["facebook", "fb", "instagram", "whatsapp", "meta", "fbcdn", "wa"]],
  ["apple id|icloud|itunes|app store", ["apple", "icloud"]],
  ["dhl", ["dhl"]],
  ["fedex", ["fedex"]],
  ["usps", ["usps"]],
  ["royal mail", ["royalmail"]],
  ["correos", ["correos"]],
  ["ctt expresso|ctt correios", ["ctt"]],
  ["poste italiane", ["poste", "posteitaliane"]],
  ["postnl", ["postnl"]],
  ["inpost", ["inpost"]],
  ["chronopost|colissimo|la poste", ["chronopost", "colissimo", "laposte"]],
  ["bbva", ["bbva"]],
  ["santander", ["santander"]],
  ["caixabank|la caixa", ["caixabank"]],
  ["bankinter", ["bankinter"]],
  ["banco sabadell", ["bancsabadell", "sabadell"]],
  ["unicredit", ["unicredit"]],
  ["intesa sanpaolo", ["intesasanpaolo"]],
  ["bnp paribas", ["bnpparibas"]],
  ["credit agricole", ["credit-agricole", "creditagricole"]],
  ["revolut", ["revolut"]],
  ["binance", ["binance"]],
  ["coinbase", ["coinbase"]],
  ["metamask", ["metamask"]],
  ["trust wallet|trustwallet", ["trustwallet"]],
  ["docusign", ["docusign"]],
  ["dropbox", ["dropbox"]],
  ["wells fargo", ["wellsfargo"]],
  ["bank of america", ["bankofamerica"]],
  ["hsbc", ["hsbc"]],
  ["barclays", ["barclays"]],
  ["natwest", ["natwest"]],
  ["bradesco", ["bradesco"]],
  ["nubank", ["nubank"]],
  [
    "mercado libre|mercadolibre|mercado livre|mercadolivre|mercado pago|mercadopago",
    ["mercadolibre", "mercadolivre", "mercadopago"],
  ],
  ["airbnb", ["airbnb"]],
  ["aliexpress", ["aliexpress"]],
  ["ebay", ["ebay"]],
  ["spotify", ["spotify"]],
  ["tiktok", ["tiktok"]],
  ["linkedin", ["linkedin"]],
  ["mastercard", ["mastercard"]],
  ["american express", ["americanexpress", "amex"]],
  ["western union", ["westernunion"]],
  ["moneygram", ["moneygram"]],
  ["pko bp|mbank", ["pkobp", "mbank"]],
  ["banca transilvania", ["bancatransilvania"]],
  ["abn amro|rabobank", ["abnamro", "rabobank"]],
];

/**
 * Each brand name's first word → the names (as words) starting with it and their brand's labels:
 * a text costs one lookup per word (a regular expression of every name cost 3 µs on a short name).
 */
const BY_FIRST_WORD = (() => {
  const table = new Map<string, Array<readonly [words: readonly string[], labels: readonly string[]]>>();
  for (const [names, labels] of TEXT_BRANDS)
    for (const name of names.split("|")) {
      const words = name.split(" ");
      const list = table.get(words[0]!) ?? [];
      list.push([words, labels]);
      table.set(words[0]!, list);
    }
  return table;
})();

const NON_WORD = /[^\p{L}\p{N}_]+/u;

/** The brands named in a folded text (lower-cased, accents off), as the labels of their own domains. */
export const brandsIn = (folded: string): Array<readonly string[]> => {
  const found: Array<readonly string[]> = [];
  const words = folded.split(NON_WORD);
  for (let i = 0; i < words.length; i++) {
    const candidates = BY_FIRST_WORD.get(words[i]!);
    if (candidates === undefined) continue;
    for (const [name, labels] of candidates)
      if (name.every((w, k) => words[i + k] === w) && !found.includes(labels)) found.push(labels);
  }
  return found;
};

/**
 * Brand labels looked for inside a host's labels: as a substring when the name is long and
 * unlike any word (paypal-login, secureamazon), as a whole hyphen-separated piece when short or
 * a word as well (dhl-tracking, apple-id).
 */
const HOST_SUBSTRING =
  "paypal netflix microsoft office365 facebook instagram whatsapp appleid icloud fedex royalmail correos postnl chronopost colissimo santander caixabank bankinter unicredit bnpparibas creditagricole revolut binance coinbase metamask trustwallet docusign dropbox wellsfargo bankofamerica barclays natwest bradesco nubank mercadolibre mercadolivre mercadopago airbnb aliexpress spotify tiktok linkedin mastercard americanexpress westernunion moneygram amazon google gmail youtube".split(
    " ",
  );
const HOST_PIECE = new Set(
  "apple dhl usps dpd inpost bbva sabadell intesa hsbc itau olx ebay yahoo irs hmrc mbank abnamro rabobank amex adobe laposte outlook poste ctt".split(
    " ",
  ),
);
/** Every registrable label a listed brand serves from (outlook.live.com, lh3.googleusercontent.com). */
const OWN_LABELS: ReadonlySet<string> = new Set([
  ...TEXT_BRANDS.flatMap(([, labels]) => labels),
  ...HOST_SUBSTRING,
  ...HOST_PIECE,
  "googleapis",
  "gstatic",
  "google-analytics",
  "youtube-nocookie",
]);

/** Second-level labels under which country registries sell names (example.co.uk, example.com.br). */
const SECOND_LEVEL = new Set(["co", "com", "org", "net", "gov", "ac", "edu", "gob", "nic"]);

/** The label a host was registered by: `paypal` in www.paypal.co.uk, `secure-login` in paypal.com.secure-login.ru. */
export const registrableLabel = (host: string): string => {
  const labels = host.toLowerCase().split(".");
  const n = labels.length;
  if (n >= 3 && labels[n - 1]!.length === 2 && SECOND_LEVEL.has(labels[n - 2]!)) return labels[n - 3]!;
  return labels[n - 2] ?? labels[0] ?? "";
};

/** The registrable part of a host: `paypal.co.uk`, `secure-login.ru`. */
export const registrableDomain = (host: string): string => {
  const labels = host.toLowerCase().split(".");
  const n = labels.length;
  const keep = n >= 3 && labels[n - 1]!.length === 2 && SECOND_LEVEL.has(labels[n - 2]!) ? 3 : 2;
  return labels.slice(-keep).join(".");
};

/** Whether a host is one of a brand's own (its registrable label is one of the brand's). */
export const isOwnDomain = (host: string, labels: readonly string[]): boolean =>
  labels.includes(registrableLabel(host));

/**
 * The brand name a host borrows, if any: in its registrable label (paypal-verify.com, paypal.top,
 * or paypal.com itself), or as a whole domain written into its subdomains
 * (paypal.com.account-id.ru). A brand's word as a plain subdomain of another site
 * (apple.stackexchange.com, a community about the brand) is the site's own naming, not a borrowing.
 */
export const brandInHost = (host: string): string | undefined => {
  const lower = host.toLowerCase();
  const label = registrableLabel(lower);
  for (const brand of HOST_SUBSTRING) if (label.includes(brand)) return brand;
  for (const piece of label.split("-")) if (HOST_PIECE.has(piece)) return piece;
  const subdomains = lower.slice(0, lower.length - registrableDomain(lower).length);
  if (subdomains === "") return undefined;
  return EMBEDDED_DOMAIN.exec(subdomains)?.[1];
};

/** A brand's domain written into subdomains: `paypal.com.` or `amazon.co.uk.` before the real one. */
const EMBEDDED_DOMAIN = new RegExp(
  `(?:^|\\.)(${[...HOST_SUBSTRING, ...HOST_PIECE].join("|")})\\.(?:com|net|org|co|[a-z]{2})\\.`,
);

/**
 * TLDs a brand's own site is not on: the cheap and new ones phishing registers brand names
 * under (amazon.top, paypal.support). A brand's label on one of these is a look-alike.
 */
const NEW_TLDS = new Set(
  "xyz top online site shop store club live icu buzz win bid loan work click link info biz space fun website tk ml ga cf gq pw cc su ws support help services security secure account login app cloud digital network center email ink lat sbs cfd bond rest pro vip cyou".split(
    " ",
  ),
);

/**
 * Words of account security that look-alike domains string together. Business words a courier
 * or a shop also names itself by (support, service, delivery, payment) are left out: a hyphenated
 * business name with one of them is an honest site as often as not.
 */
const SECURITY_WORDS = new Set(
  "secure security account accounts verify verification verified update login signin logon auth authentication billing confirm confirmation wallet recovery recover unlock validate validation alert alerts cuenta conta verifica seguridad seguranca sicurezza securite konto".split(
    " ",
  ),
);

/**
 * A look-alike host: a brand's name in a domain that is not the brand's (paypal-login.com,
 * paypal.com.verify-id.ru), or the brand's own label on a new TLD (amazon.top): `brand`; or a
 * registrable name that is a chain of three or more hyphenated words, one of them an account or
 * security word (secure-account-update.com): `security-words`. An ordinary business name with
 * hyphens (best-hotel-in-rome.it) has none of those words; a brand's own sites are left alone.
 */
export const lookalikeKind = (host: string): "brand" | "security-words" | undefined => {
  const label = registrableLabel(host);
  const brand = brandInHost(host);
  if (brand !== undefined) {
    const tld = host.slice(host.lastIndexOf(".") + 1).toLowerCase();
    if (!OWN_LABELS.has(label) || NEW_TLDS.has(tld)) return "brand";
  }
  const pieces = label.split("-");
  if (pieces.length >= 3 && pieces.some((p) => SECURITY_WORDS.has(p))) return "security-words";
  return undefined;
};
