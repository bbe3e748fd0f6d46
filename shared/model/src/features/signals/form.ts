import { brandsIn, isOwnDomain, lookalikeKind, registrableDomain } from "./brands.ts";
import { isFreeMail } from "./contact.ts";

/**
 * What the whole form says of who sent it and where it points, across its fields: the form
 * signals that compare one field with another (issue 59). Each reads the same in any language,
 * since domains, addresses and brand names are not translated.
 */
export interface FormPart {
  /** Values of the name fields. */
  names: readonly string[];
  /** E-mail addresses given in e-mail fields (the sender's). */
  senders: readonly string[];
  /** Hosts of every link, in link and text fields. */
  hosts: readonly string[];
  /** The text fields' values, folded (lower-cased, accents off). */
  texts: readonly string[];
  /** The text fields' values as written (a signature's capitals). */
  raw: readonly string[];
}

/**
 * Platforms an honest sender links to whatever their own domain (a video, a map, a document, a
 * profile): a link to one says nothing of where the sender is.
 */
const PLATFORMS = new Set(
  "youtube.com youtu.be google.com goo.gl facebook.com instagram.com linkedin.com x.com twitter.com wikipedia.org github.com dropbox.com imgur.com vimeo.com tiktok.com maps.app.goo.gl apple.com microsoft.com amazon.com".split(
    " ",
  ),
);

/** A company: its legal form or the words agencies name themselves by, in a name or signature. */
const COMPANY_NAME =
  /\b(?:ltd|llc|inc|gmbh|plc|pty|corp|srl|sarl|ltda|agency|agencia|agence|agentur|agencja|digital|solutions|marketing|consulting|technologies|team|group|seo)\b|\b(?:s\.l|s\.a|b\.v|sp\. ?z ?o\.o)\./i;
/** A signature naming a company: "Mike from Monkey Digital", "The Leader Team", "Jane, Acme Ltd". */
const SIGNED_COMPANY =
  /\b(?:from|at|of|de|da|di|von|van|z) (?:the )?[A-Z][\w&'-]*(?: [A-Z][\w&'-]*){0,2} (?:Ltd|LLC|Inc|GmbH|Agency|Digital|Solutions|Marketing|Media|Consulting|Technologies|Studio|Team|Group|SEO)\b|\b[A-Z][\w&'-]* (?:Digital|Marketing|Media|SEO|Solutions) Team\b/;

/** The sender's domain, lower-cased. */
const domainOf = (address: string): string =>
  address
    .slice(address.lastIndexOf("@") + 1)
    .trim()
    .toLowerCase();

/**
 * - `brand:sender`: a brand in the name or the address's local part (PayPal Service,
 *   amazon.support@gmail.com) or a look-alike sender domain, from a domain not the brand's;
 * - `brand:links-elsewhere`: a brand named in the text while every link goes elsewhere and the
 *   text speaks of the reader's account or parcel (pitch.ts's second-person account words);
 * - `lookalike:brand` / `lookalike:security-words`: a link or sender host that borrows a brand's
 *   name or strings account words together (brands.ts);
 * - `sender:links-elsewhere`: a sender on a domain of their own whose links all point to other
 *   sites (platforms aside): a pitch sent from one company for another's offer, or a hijacked
 *   address;
 * - `freemail:company`: a company's name (a legal form, an agency's words) beside a free-mail
 *   address; a company writes from its own domain, cold outreach from throw-aways.
 */
export const formSignals = (form: FormPart, out: string[]): void => {
  const senderDomains = form.senders.map(domainOf);
  const text = form.texts.join("\n");
  const names = form.names.join(" ");
  const nameText = /[\u0080-\uffff]/.test(names)
    ? names.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    : names.toLowerCase();
  const senderText = [nameText, ...form.senders.map((a) => a.slice(0, a.lastIndexOf("@")).toLowerCase())]
    .join(" ")
    .replace(/[._+-]/g, " ");
  for (const labels of brandsIn(senderText)) {
    const elsewhere = senderDomains.length > 0 ? senderDomains : form.hosts;
    if (elsewhere.length > 0 && !elsewhere.some((d) => isOwnDomain(d, labels))) {
      out.push("brand:sender");
      break;
    }
  }
  if (form.hosts.length > 0 && YOUR_THINGS.test(text)) {
    for (const labels of brandsIn(text)) {
      if (!form.hosts.some((h) => isOwnDomain(h, labels))) {
        out.push("brand:links-elsewhere");
        break;
      }
    }
  }
  // A free-mail provider's own domain is never a look-alike: most senders skip the check.
  const lookalikes = new Set(
    [...form.hosts, ...senderDomains.filter((d) => !isFreeMail(d))].map(lookalikeKind),
  );
  if (lookalikes.has("brand")) out.push("lookalike:brand");
  if (lookalikes.has("security-words")) out.push("lookalike:security-words");
  const own = senderDomains.filter((d) => !isFreeMail(d)).map(registrableDomain);
  if (own.length > 0) {
    const others = form.hosts.map(registrableDomain).filter((d) => !PLATFORMS.has(d));
    if (others.length > 0 && !others.some((d) => own.includes(d))) out.push("sender:links-elsewhere");
  }
  if (senderDomains.some(isFreeMail)) {
    const rawText = form.names.join(" ");
    if (COMPANY_NAME.test(rawText) || form.raw.some((t) => SIGNED_COMPANY.test(t)))
      out.push("freemail:company");
  }
};

/**
 * The reader's own account, card, order or parcel: a brand named beside them and a link elsewhere
 * is the phish's shape, where a brand named in passing ("I saw your ad on Facebook") is not.
 */
const YOUR_THINGS =
  /\b(?:your|su|tu|sua|seu|tua|teu|il tuo|la tua|votre|ihr|ihre|uw|twoje|twoja|dvs|el teu)\b(?: \w+)? (?:account|card|order|parcel|package|delivery|shipment|payment|wallet|password|login|cuenta|tarjeta|pedido|paquete|envio|conta|cartao|encomenda|pacote|conto|carta|ordine|pacco|spedizione|compte|carte|commande|colis|konto|karte|bestellung|paket|sendung|rekening|bestelling|pakket|zamowienie|paczka|przesylka|contul|cardul|comanda|coletul|compte|targeta|comanda|paquet)\b/;
