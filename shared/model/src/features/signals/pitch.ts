/**
 * The anatomy of a pitch and of a phish within one text (issue 59), in the languages the
 * phrasing signals read (English, Spanish, Portuguese, Italian, Catalan, Romanian, French,
 * German, Dutch, Polish), on the folded text (lower-cased, accents off). Each signal is a
 * combination of parts, never one sentence: an honest message has one part at most (a customer
 * asks about *my* account, a buyer overpaid *the shop*, a designer asks *us* for a quote).
 */

/** The recipient's own site or business, addressed in the second person. */
const YOUR_BUSINESS =
  /\byour (?:website|site|business|company|brand|online presence|shop|store|practice|page|listing|google (?:profile|listing)|social media)\b|\b(?:su|tu) (?:sitio web|pagina web|web|negocio|empresa|marca|tienda)\b|\b(?:seu|teu) (?:site|negocio|sitio)\b|\b(?:sua|tua) (?:empresa|marca|pagina|loja)\b|\b(?:vostro|tuo) (?:sito|business|negozio)\b|\b(?:vostra|tua) (?:azienda|attivita|pagina)\b|\b(?:vostre|teu) (?:web|lloc web|negoci|empresa)\b|\bsite-?ul (?:dvs|dumneavoastra|tau)\b|\bafacerea (?:dvs|ta)\b|\buw (?:website|site|bedrijf|webshop)\b|\b(?:twoja|twojej|pana|pani) (?:strona|stronie|firma|firmy)\b|\bihre?[nm]? (?:website|webseite|firma|unternehmen|shop)\b|\bvotre (?:site|entreprise|societe|boutique|activite)\b/;

/** The sender offering a service: we can, we offer, our team, I would like to offer. */
const OFFER =
  /\bwe (?:can|could|will) (?:help|get|boost|increase|improve|bring|build|design|create|rank|grow|generate|drive|fix|provide|offer)\b|\bi (?:can|could|will) (?:boost|increase|improve|build|design|redesign|create|rank|grow|generate|drive|optimi[sz]e)\b|\bwe (?:offer|provide|specialize|specialise|help businesses|work with|are an? (?:agency|team|company))|\bour (?:team|agency|services?|experts?|company|clients?|packages?|prices start)\b|\bi (?:would|'d) (?:like|love) to (?:offer|help|show|propose|share)|\b(?:podemos|ofrecemos|nuestro equipo|nuestros servicios|nuestra agencia|le ofrezco|te ofrezco|oferecemos|nossa equipe|nossos servicos|nossa agencia|possiamo|offriamo|il nostro team|i nostri servizi|la nostra agenzia|oferim|echipa noastra|serviciile noastre|nous proposons|nous pouvons|notre equipe|nos services|notre agence|wir bieten|wir konnen|unser team|unsere agentur|wij bieden|wij kunnen|ons team|onze diensten|oferujemy|mozemy|nasz zespol|nasze uslugi|oferim|podem|oferim|el nostre equip)\b/;

/** A call to action: reply, book a call, tell me if interested, message on WhatsApp. */
const CALL_TO_ACTION =
  /\b(?:reply|respond|write back|get back to me|let me know|are you interested|interested\?|if (?:you are|you're) interested|book (?:a|your) (?:call|demo|meeting|slot)|schedule (?:a|your) (?:call|demo|meeting)|hop on a (?:quick )?call|contact (?:me|us)|reach (?:me|us|out)|whatsapp|skype|telegram|call (?:me|us)|claim your|sign up|get started|click)\b|\b(?:responda|responde|contactenos|contacteme|escribanos|le interesa|te interesa|si esta interesado|agende|agendar|entre em contato|fale conosco|tem interesse|rispondi|risponda|contattaci|contattami|le interessa|ti interessa|repondez|contactez-nous|contactez-moi|vous etes interesse|interesse\?|antworten sie|kontaktieren sie|melden sie sich|interessiert\?|antwoord|neem contact|geinteresseerd|odpowiedz|skontaktuj|zainteresowany|raspundeti|contactati-ne|sunteti interesat|respon|contacta'ns)\b/;

/**
 * An offer of the sender's service to the recipient's site or business with a call to action:
 * the three parts of every outreach pitch (SEO, design, leads, AI receptionists, guest posts),
 * whatever the service. A customer asking about the site has the second person but no offer; a
 * designer's genuine enquiry asks for the recipient's service, it does not offer its own.
 */
const offerToYourSite = (folded: string): boolean =>
  YOUR_BUSINESS.test(folded) && OFFER.test(folded) && CALL_TO_ACTION.test(folded);

/** The recipient's account, card, parcel or wallet, in the second person. */
const YOUR_ACCOUNT =
  /\byour (?:account|password|card|parcel|package|shipment|delivery|payment|wallet|apple id|profile|mailbox|subscription|membership|funds)\b|\b(?:su|tu) (?:cuenta|contrasena|tarjeta|paquete|envio|pedido|billetera|suscripcion)\b|\b(?:sua|tua) (?:conta|senha|encomenda|assinatura|carteira)\b|\b(?:seu|teu) (?:cartao|pacote|pedido|envio)\b|\b(?:il (?:tuo|vostro) (?:account|conto|pacco|abbonamento)|la (?:tua|vostra) (?:carta|spedizione|password))\b|\b(?:contul|cardul|coletul|parola) (?:dvs|tau|dumneavoastra)\b|\bvotre (?:compte|carte|colis|mot de passe|abonnement|livraison)\b|\bihre?[nms]? (?:konto|karte|paket|sendung|passwort|abonnement)\b|\buw (?:account|rekening|pakket|pas|wachtwoord|abonnement)\b|\b(?:twoje|twoja|twojej) (?:konto|paczka|karta|haslo|przesylka|subskrypcja)\b|\bel (?:vostre|teu) (?:compte|paquet|targeta)\b/;

/** What a phish threatens or asks of that account: suspended, locked, unusual activity, verify. */
const ACCOUNT_THREAT =
  /\b(?:suspend|lock|restrict|block|deactivat|disabl|terminat|expir|compromis|unauthori[sz]ed|unusual|suspicious|frozen|unpaid|redeliver)\w*|\b(?:on hold|(?:has|have|will) been (?:limited|closed|deleted)|will be (?:limited|closed|deleted)|customs (?:fee|charge)s?|shipping fee)\b|\b(?:suspendid|suspens|bloquead|restringid|desactivad|caducad|expirad|sospes|bloccat|disattivat|scadut|suspendu|bloque|desactive|expire|gesperrt|eingeschrankt|deaktiviert|abgelaufen|geblokkeerd|opgeschort|verlopen|zablokowan|zawieszon|wygasl|suspendat|blocat|expirat|bloquejat|suspes|tasa de aduana|taxa alfandegaria|dazi doganali|frais de douane|zollgebuhr)\w*/;

/**
 * The recipient's own account, card or parcel in trouble or waiting on them (suspended, locked,
 * unusual sign-in, a customs fee): the phish's lever. A customer writing about *my* account, or
 * asking the site to verify *my* order, says neither.
 */
const accountThreat = (folded: string): boolean => YOUR_ACCOUNT.test(folded) && ACCOUNT_THREAT.test(folded);

/** The sender pays the recipient: I will send you a cheque, we paid you. */
const PAYS_YOU =
  /\b(?:i|we)(?: will| shall|'ll| have| had)? (?:send|sent|pay|paid|issue|issued|mail|mailed|transfer|transferred|wire|wired) you\b|\b(?:le|te|les) (?:envio|enviare|envie|pago|pague|pagare|transfiero|transferi)\b|\b(?:lhe|te) (?:envio|enviarei|enviei|pago|paguei|pagarei|transferi)\b|\bvou (?:lhe|te) (?:enviar|pagar)\b|\bti (?:invio|inviero|ho inviato|pago|paghero|ho pagato)\b|\bvi (?:invio|inviero|pago|paghero)\b|\bje vous (?:envoie|enverrai|ai envoye|paie|paierai|ai paye|verse)\b|\bich (?:sende|schicke|zahle|uberweise) ihnen\b|\bik (?:stuur|betaal|maak) u\b|\b(?:wysle|przeleje|zaplace) (?:panu|pani|ci)\b|\bva voi (?:trimite|plati)\b|\bus (?:envio|pago|enviare)\b/;

/** More than the price: the surplus, the difference, the balance. */
const SURPLUS =
  /\b(?:more than|extra|excess|over ?payment|overpa\w*|surplus|the difference|the balance|the rest|remaining (?:amount|balance|funds)|de mas|la diferencia|el resto|el excedente|a mais|a diferenca|o restante|in piu|la differenza|il resto|l'eccedenza|de plus|la difference|le reste|l'excedent|mehr als|die differenz|den rest|den uberschuss|meer dan|het verschil|het restant|wiecej niz|roznice|reszte|nadplat\w*|in plus|diferenta|restul|la diferencia|de mes)\b/;

/** Where the surplus is to go: a third party or an untraceable instrument. */
const FORWARD_TO =
  /\b(?:shipper|shipping (?:agent|company)|mover|movers|courier|my agent|the agent|transporter|western union|moneygram|gift ?cards?|cashier'?s (?:check|cheque)|certified (?:check|cheque)|(?:a |the )?(?:check|cheque)|bitcoin|transportista|agente de envio|mensajero|transportadora|despachante|spedizioniere|corriere|trasportatore|transporteur|transitaire|spediteur|umzugsfirma|vervoerder|przewoznik|spedytor|curier|transportator|cheque|assegno|scheck|czek|cec)\b/;

/**
 * Money asked back: the sender pays the recipient more than the price and the surplus is to go
 * on to a shipper, an agent or through a cheque or gift card (the overpayment scam). A customer
 * who paid twice and asks for the difference back names no third party and no cheque.
 */
const moneyBack = (folded: string): boolean =>
  PAYS_YOU.test(folded) && SURPLUS.test(folded) && FORWARD_TO.test(folded);

/** The pitch and phish signals of one text field's folded text. */
export const pitchSignals = (folded: string, out: string[]): void => {
  if (offerToYourSite(folded)) out.push("offer:your-site");
  if (accountThreat(folded)) out.push("phish:account-threat");
  if (moneyBack(folded)) out.push("money:back");
};

/** Issue 59's pitch, phish and campaign signals (docs/model/form-spam.md): what its tests and weights read. */
export const FORM_SPAM_SIGNALS = [
  "brand:sender",
  "brand:links-elsewhere",
  "lookalike:brand",
  "lookalike:security-words",
  "sender:links-elsewhere",
  "freemail:company",
  "offer:your-site",
  "phish:account-threat",
  "money:back",
  "campaign:phrase",
  "campaign:terms:1",
  "campaign:terms:2",
] as const;
