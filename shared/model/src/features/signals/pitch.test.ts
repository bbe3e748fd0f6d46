import { describe, expect, it } from "vitest";
import { foldText } from "./phrasing.ts";
import { pitchSignals } from "./pitch.ts";

const signals = (text: string): string[] => {
  const out: string[] = [];
  pitchSignals(foldText(text), out);
  return out;
};

describe("pitch and phish signals", () => {
  it("reads an offer to the recipient's site with a call to action, whatever the service, in several languages", () => {
    for (const pitch of [
      "I noticed your website loads slowly. We can fix it and improve your Google ranking. Are you interested?",
      "Our team builds AI receptionists that answer your business's calls 24/7. Book a call this week.",
      "Hola, he visto su página web. Podemos aumentar las ventas de su negocio con anuncios. ¿Le interesa? Responda a este correo.",
      "Olá! Oferecemos avaliações verificadas para a sua empresa no Google. Tem interesse? Entre em contato.",
      "Buongiorno, possiamo portare nuovi clienti al vostro sito con la lead generation. Le interessa? Rispondi pure.",
      "Bonjour, nous proposons la refonte de votre site en une semaine. Vous êtes intéressé ? Contactez-moi.",
      "Dzień dobry, oferujemy pozycjonowanie. Twoja strona może być wyżej. Odpowiedz, jeśli jesteś zainteresowany.",
    ])
      expect(signals(pitch), pitch).toContain("offer:your-site");
  });

  it("leaves a customer's question about the site and a designer's genuine enquiry alone", () => {
    for (const honest of [
      "Your website says you deliver to Lyon. Can you deliver on Friday? Let me know, thanks.",
      "Hi, I'm a web designer. Could you quote 200 business cards for my studio? Let me know.",
      "I can help you carry the boxes on Saturday if your shop is short of hands, just let me know.",
      "Hola, ¿su tienda abre el domingo? Quería pasar con mi hija. Gracias.",
      "Bonjour, votre site ne s'affiche pas sur mon téléphone, je voulais vous prévenir.",
    ])
      expect(signals(honest), honest).not.toContain("offer:your-site");
  });

  it("reads the reader's account, card or parcel in trouble, in several languages", () => {
    for (const phish of [
      "Your account has been suspended due to unusual activity. Restore access within 24 hours.",
      "Your parcel is on hold: a customs fee of 1.99 is unpaid.",
      "Su cuenta ha sido bloqueada temporalmente. Acceda para reactivarla.",
      "A sua conta foi suspensa por motivos de segurança.",
      "Il tuo account è stato sospeso, accedi per verificare i tuoi dati.",
      "Votre compte a été suspendu suite à une activité inhabituelle.",
      "Ihr Konto wurde gesperrt. Bitte bestätigen Sie Ihre Daten.",
      "Twoje konto zostało zablokowane.",
    ])
      expect(signals(phish), phish).toContain("phish:account-threat");
  });

  it("leaves a bank's customer writing about their own account alone", () => {
    for (const honest of [
      "Hello, my account was suspended after I moved abroad. Could you help me get it back?",
      "Could you confirm your delivery days for Porto? I'd like to order a table.",
      "Hola, mi cuenta del banco está bloqueada y no puedo pagar el pedido. ¿Puedo pagar en tienda?",
      "Mein Konto ist gesperrt, kann ich per Rechnung zahlen?",
    ])
      expect(signals(honest), honest).not.toContain("phish:account-threat");
  });

  it("reads money asked back through a third party (the overpayment scam)", () => {
    for (const scam of [
      "I will send you a cashier's check for $3,500, more than the price. Please wire the difference to my shipper.",
      "My agent will issue the payment; we sent you extra to cover the mover, so please send the balance by Western Union.",
      "Le enviaré un cheque por más del precio; la diferencia la manda a mi transportista.",
      "Je vous envoie un chèque de 2 000 €, la différence est pour le transporteur.",
    ])
      expect(signals(scam), scam).toContain("money:back");
  });

  it("leaves a customer who overpaid and asks for the difference alone", () => {
    for (const honest of [
      "I paid you twice by mistake for order 1234, could you refund the difference? Thanks",
      "I was charged more than the price on the site, can you return the difference to my card?",
      "Te pagué de más por error, ¿me podéis devolver la diferencia?",
      "We will send you the deposit by bank transfer tomorrow and the rest on arrival.",
    ])
      expect(signals(honest), honest).not.toContain("money:back");
  });
});
