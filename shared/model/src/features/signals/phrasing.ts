import type { TextPart } from "./part.ts";
import { LISTS, phraseHits } from "../lists.ts";

/**
 * The wording below is matched in English and, since issue 51, in the languages sites write most
 * (Spanish, Portuguese, Italian, Catalan, Romanian, Galician, French, German, Dutch, Polish), on
 * the text lower-cased and stripped of accents: a signal's weight is learned once, from English
 * and the translated families, and reads the same wherever the idea is written.
 */

/** An amount with a currency: "$299", "€ 50", "199 usd", "R$ 90", "49 zł", "120 lei". */
const MONEY =
  /[$€£₹¥]\s?\d|\d\s?(?:usd|eur|gbp|dollars?|euros?|bucks|reais|zl|zloty|lei|ron|chf|pln)\b|\br\$\s?\d|\d\s?(?:dolares|dolars|euro)\b/i;
const DISCOUNT =
  /\d\s?%\s?(?:off|de descuento|de desconto|di sconto|korting|rabatu?|reducere|de reduction|de remise)\b|\bdiscount|\bcoupon|\bpromo ?code|\bper cent off|\bsale ends|\bdescuentos?\b|\bdescontos?\b|\bcupon(?:es)?\b|\bcupom\b|\bsconto\b|\bcodice promozionale|\bdescompte|\breducere\b|\bkorting|\brabat|\bznizk|\bgutschein|\bremise\b|\bsoldes\b/i;
const PRICE_WORDS =
  /\b(?:prices?|pricing|cheap(?:est)?|affordable|low cost|budget|packages? start|starting (?:at|from)|from only|precios?|baratos?|barata|economicos?|precos?|prezzi|prezzo|economici|preus?|barats?|preturi|pret|ieftine?|prijzen|prijs|goedkope?|ceny|cena|tanie|tani|preise?|gunstige?|billig|prix|pas cher|bon marche)\b/i;

/**
 * Cold outreach and marketing pitches, the bulk of contact-form spam. Each entry is one idea, so
 * the count says how many different pitch elements a message strings together.
 */
const OUTREACH: readonly RegExp[] = [
  /\bseo\b|search engine|motores? de busca|motor(?:es)? de cerca|motori di ricerca|motoare de cautare|zoekmachine|wyszukiwar|suchmaschine|referencement|moteurs? de recherche|posicionamiento|posicionamento|posizionamento|posicionament/,
  /\btraffic\b|\btrafico\b|\btrafego\b|\btraffico\b|\btransit web|\btrafic\b|\bverkeer naar|\bruch na (?:stron|witryn)|\bbesucherzahlen/,
  /\brank(?:s|ing|ings)?\b|first page|top of google|page one of google|primera pagina|primeira pagina|prima pagina|primera plana de google|prima pagina di google|prima pagina pe google|eerste pagina|pierwsz(?:a|ej) stron|erste seite|premiere page/,
  /\bbacklinks?\b|link ?building|\bdofollow\b|\bda\s?\d|enlaces de calidad|construccion de enlaces|link de qualidade/,
  /\bguest ?posts?\b|sponsored (?:post|article)|\bpublish (?:an|my|your) article|articulos? patrocinados?|posts? patrocinados?|articoli? sponsorizzat|artikel gesponsord|artykul sponsorowany|gastbeitrag|article sponsorise/,
  /web ?(?:site )?design|website (?:design|development|redesign)|\bweb ?development|build (?:a |your )?websites?|disen(?:o|y) web|desarrollo web|paginas web profesionales|criacao de sites|design de sites|desenvolvimento (?:web|de sites)|sviluppo (?:web|siti)|realizzazione siti|siti web professionali|disseny web|design web|webdesign|webontwikkeling|projektowanie stron|tworzenie stron|strony internetowe|webentwicklung|creation de sites?|site vitrine/,
  /digital marketing|social media (?:marketing|management)|marketing (?:services|agency|campaign)|marketing digital|marketing digitale|marketing online|redes sociales|redes sociais|social media|mitjans socials|retele sociale|sociale media|media spolecznosciow|agencia de marketing|agenzia di marketing|marketingbureau|agencja marketingow/,
  /\bleads?\b|\bconversions?\b|\bsales funnel|increase (?:your )?(?:sales|revenue)|clientes potenciales|potenciais clientes|clienti potenziali|aumentar (?:sus |suas |tus |as |las )?(?:ventas|vendas)|aumentare (?:le )?vendite|augmenter (?:vos )?ventes|meer klanten|wiecej klientow|mehr kunden|plus de clients|mas clientes|mais clientes|piu clienti|mai multi clienti/,
  /quick question|\bi noticed\b|\bi came across\b|\bi was (?:on|checking|looking at) your (?:site|website)|he visto (?:su|tu) (?:web|sitio|pagina)|vi (?:o )?seu site|ho visto il (?:vostro|tuo) sito|ik zag uw (?:website|site)|zauwazylem|ich habe ihre website|j'ai vu votre site|pregunta rapida|pergunta rapida|domanda veloce/,
  /your (?:website|site|business|company|brand|online presence)|(?:su|tu) (?:sitio web|pagina web|web|negocio|empresa|marca)\b|(?:seu|teu) (?:site|negocio|sitio)\b|(?:sua|tua) (?:empresa|marca|pagina)\b|(?:il )?(?:vostro|tuo) (?:sito|business)\b|(?:la )?(?:vostra|tua) (?:azienda|attivita)\b|(?:el )?(?:vostre|teu) (?:web|lloc web|negoci)\b|site-?ul (?:dvs|dumneavoastra|tau)|afacerea (?:dvs|ta)|\buw (?:website|site|bedrijf)\b|(?:twoja|twojej|pana|pani) (?:strona|stronie|firma|firmy)\b|ihre?n? (?:website|webseite|firma|unternehmen)\b|votre (?:site|entreprise|societe)\b/,
  /free (?:audit|quote|consultation|trial|analysis|report)|reply (?:yes|with|to this)|no obligation|presupuesto (?:gratis|gratuito|sin compromiso)|sin compromiso|orcamento (?:gratis|gratuito|sem compromisso)|sem compromisso|preventivo gratuito|senza impegno|pressupost gratuit|sense compromis|oferta gratuita|fara obligatii|gratis offerte|vrijblijvend|darmowa wycena|bez zobowiazan|kostenlose?s? (?:angebot|analyse|beratung)|unverbindlich|devis gratuit|sans engagement/,
  /\boutsourc|\bvirtual assistant|\bapp development|\bwhite ?label|asistente virtual|assistente virtuale|desarrollo de (?:apps|aplicaciones)|desenvolvimento de (?:apps|aplicativos)|sviluppo (?:di )?app/,
];

/**
 * The lures of the rest of the spam a form gets: easy money, click here, free, a prize, urgency,
 * credit and crypto, each one idea (counted 1, 2, 3+ as outreach is).
 */
const LURES: readonly RegExp[] = [
  /\b(?:earn|make) (?:money|cash|\$)|work (?:from|at) home|passive income|extra income|gana(?:r)? dinero|ganar plata|ingresos (?:extra|pasivos)|desde (?:casa|tu casa)|ganh(?:e|ar) dinheiro|renda (?:extra|passiva)|trabalh(?:e|ar) (?:de|em) casa|guadagn(?:a|are) (?:soldi|denaro)|reddito passivo|da casa tua|guanya(?:r)? diners|castiga(?:ti)? bani|venit pasiv|de acasa|geld verdienen|verdien geld|vanuit huis|zarabiaj|zarobic|pieniadze|von zu hause|gagner de l'argent|revenu passif|depuis (?:chez )?vous|diners? facils|dinero facil|dinheiro facil|soldi facili/,
  /click (?:here|the link|below)|\bhaga? clic|\bclic aqui|\bpulsa aqui|\bclique aqui|\bclica aqui|\bclicca qui|\bfai clic|\bfeu clic|\bfa(?:ceti)? clic aici|\bklik hier|\bkliknij|\bhier klicken|\bklicken sie|\bcliquez ici|\bcliquez sur/,
  /\b(?:100% )?free (?:gift|money|access|iphone|bonus|entry)|\bfor free\b|\bfree of charge\b|\b(?:100%|totally|completely) free\b|\bgratis\b|\bgratuito?s?\b|\bgratuita?s?\b|\bgratuit\b|\bgratuitement\b|\bkostenlos|\bdarmow|\bza darmo|\bgratuite?\b/,
  /\bcongratulations\b|\byou(?:'ve| have)? won\b|\bwinner\b|\bprize\b|\bfelicidades\b|\bhas ganado\b|\bganador\b|\bpremio\b|\bparabens\b|\bvoce ganhou\b|\bpremio\b|\bcongratulazioni\b|\bhai vinto\b|\bvincitore\b|\bfelicitats\b|\bhas guanyat\b|\bfelicitari\b|\bai castigat\b|\bcastigator\b|\bgefeliciteerd\b|\bgewonnen\b|\bgratulacje\b|\bwygral|\bnagrod|\bherzlichen gluckwunsch|\bgewinner\b|\bfelicitations\b|\bvous avez gagne\b|\bgagnant\b/,
  /limited (?:time|offer)|act now|\burgent\b|\bonly today\b|oferta limitada|tiempo limitado|solo hoy|por tempo limitado|so hoje|apenas hoje|offerta limitata|solo oggi|tempo limitato|nomes avui|oferta limitata|doar azi|beperkte tijd|alleen vandaag|ograniczon|tylko dzis|nur heute|begrenzte zeit|offre limitee|aujourd'hui seulement|\burgente\b|\bdringend\b|\bpilne\b/,
  /\b(?:bitcoin|crypto|forex|casino|viagra|cialis|payday loans?)\b|\bcripto|\bkryptowalut|\bapuestas?\b|\bapostas?\b|\bscommesse\b|\bpariuri\b|\bkasyno\b|\bcasino\b|\bgokken\b|\bwetten\b/,
];

const PRAISE =
  /\b(?:great|nice|awesome|amazing|excellent|wonderful|informative|useful|helpful|fantastic|good|superb|brilliant) (?:post|article|blog|content|site|website|read|information|info|job|share|writing|work)\b|\bthanks? (?:you )?for (?:sharing|this (?:post|article)|the (?:post|article|info))|\bkeep (?:it up|up the good work)/;

/**
 * A text lower-cased with accents and fancy-font letters off (ASCII text, most of it, is already
 * so): "página", "pagina" and "𝐩𝐚𝐠𝐢𝐧𝐚" are one word.
 */
export const foldText = (text: string): string => {
  const lower = text.toLowerCase();
  return /[\u0080-\uffff]/.test(lower) ? text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase() : lower;
};

/**
 * Wording signals over a text field's stripped text (lower-cased) and its canonical words: money,
 * prices and discounts, outreach pitch elements, praise (alone, or followed by a link: the
 * blog-comment template), and how many phrases of the comment-spam and Stack Exchange keyword
 * lists it contains.
 */
export const phrasingSignals = ({ stripped, folded, tokens, hosts }: TextPart, out: string[]): void => {
  const lower = stripped.toLowerCase();
  if (MONEY.test(folded)) out.push("money");
  if (DISCOUNT.test(folded)) out.push("discount");
  if (PRICE_WORDS.test(folded)) out.push("price-words");
  let pitch = 0;
  for (const idea of OUTREACH) if (idea.test(folded)) pitch++;
  // Bins: one pitch element appears in ordinary enquiries ("your website"), three rarely do.
  if (pitch > 0) out.push(`outreach:${Math.min(pitch, 3)}`);
  let lures = 0;
  for (const idea of LURES) if (idea.test(folded)) lures++;
  if (lures > 0) out.push(`lures:${Math.min(lures, 3)}`);
  const praise = PRAISE.exec(lower);
  if (praise)
    out.push(hosts.length > 0 && lower.indexOf("weblink", praise.index) !== -1 ? "praise+link" : "praise");
  const wp = phraseHits(LISTS.wpPhrases, tokens);
  // Bins by doubling: the author warns that single short phrases also occur in real comments.
  if (wp > 0) out.push(`wp-phrases:${wp === 1 ? 1 : wp <= 3 ? 2 : wp <= 7 ? 4 : 8}`);
  const se = phraseHits(LISTS.seKeywords, tokens);
  if (se > 0) out.push(`se-keywords:${Math.min(se, 2)}`);
};
