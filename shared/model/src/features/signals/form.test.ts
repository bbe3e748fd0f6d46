import type { NormalizedField } from "@sift/contracts";
import { describe, expect, it } from "vitest";
import { featurize, type FieldTrace } from "../featurize.ts";
import { lookalikeKind } from "./brands.ts";

/** The signals featurize fires on a whole form (the form signals need every field). */
const signals = (fields: NormalizedField[]): string[] => {
  const traces: FieldTrace[] = [];
  featurize(fields, traces);
  return traces.flatMap((t) => t.signals);
};

describe("look-alike domains", () => {
  it("reads a brand in someone else's domain, a brand on a new TLD and chains of account words", () => {
    for (const host of [
      "paypal-verify.com",
      "secure.paypal.com.account-id.ru",
      "appleid-support.net",
      "dhl-tracking.info",
      "amazon.top",
      "santander-clientes.es",
      "correos-aduanas.com",
    ])
      expect(lookalikeKind(host), host).toBe("brand");
    expect(lookalikeKind("secure-account-update.com")).toBe("security-words");
    expect(lookalikeKind("login-verify-wallet.net")).toBe("security-words");
  });

  it("leaves brands' own domains and ordinary hyphenated business names alone", () => {
    for (const host of [
      "paypal.com",
      "www.paypal.co.uk",
      "outlook.live.com",
      "lh3.googleusercontent.com",
      "dhl.de",
      "correos.es",
      "best-hotel-in-rome.it",
      "pineapple-farm.com",
      "hotel-booking.it",
      "groups.example.org",
      "apple.stackexchange.com",
      "google.blogspot.com",
      "casa-de-campo-alentejo.pt",
    ])
      expect(lookalikeKind(host), host).toBeUndefined();
  });
});

describe("form signals", () => {
  it("reads a brand named as the sender from another domain, and a brand's account beside links elsewhere", () => {
    const phish = signals([
      ["name", "PayPal Service"],
      ["email", "service.paypal@gmail.com"],
      [
        "message",
        "Your PayPal account has been limited. Restore it here: https://resolution-center.example.net/login",
      ],
    ]);
    expect(phish).toContain("brand:sender");
    expect(phish).toContain("brand:links-elsewhere");
    const courier = signals([
      ["name", "Correos"],
      ["email", "avisos@envios-correos-es.com"],
      ["message", "Su paquete está retenido. Pague la tasa de aduana: https://envios-correos-es.com/pago"],
    ]);
    expect(courier).toContain("brand:sender");
    expect(courier).toContain("lookalike:brand");
  });

  it("leaves a bank's customer, a brand's real staff and a brand named in passing alone", () => {
    const twins: NormalizedField[][] = [
      [
        ["name", "Laura Pérez"],
        ["email", "laura.perez@gmail.com"],
        [
          "message",
          "Hola, soy cliente de Santander y mi cuenta está bloqueada, ¿puedo pagar el pedido en tienda?",
        ],
      ],
      [
        ["name", "Tom from DHL"],
        ["email", "tom.baker@dhl.com"],
        [
          "message",
          "Hello, we could not deliver your parcel to the shop today; see https://www.dhl.com/track?id=123",
        ],
      ],
      [
        ["name", "Marta"],
        ["email", "marta@gmail.com"],
        [
          "message",
          "I saw your ad on Facebook and Instagram. Is the blue sofa at https://shop.example.com/sofa still in stock?",
        ],
      ],
      [
        ["name", "Chris Apple"],
        ["email", "chris.apple@outlook.com"],
        ["message", "Do you repair iPhone screens? My card payment failed on your shop, I'll pay cash."],
      ],
    ];
    for (const twin of twins) {
      const fired = signals(twin);
      for (const signal of [
        "brand:sender",
        "brand:links-elsewhere",
        "lookalike:brand",
        "lookalike:security-words",
      ])
        expect(fired, `${signal} on ${twin.at(-1)![1]}`).not.toContain(signal);
    }
  });

  it("reads a sender's domain against the links' domains, platforms aside", () => {
    expect(
      signals([
        ["email", "mike@growthmail.example"],
        ["message", "Get more traffic: https://www.seo-speed.example/get-started"],
      ]),
    ).toContain("sender:links-elsewhere");
    for (const twin of [
      [
        ["email", "anna@bakery-anna.example"],
        [
          "message",
          "Our menu is at https://bakery-anna.example/menu and a video https://youtube.com/watch?v=1",
        ],
      ],
      [
        ["email", "anna@gmail.com"],
        ["message", "Here is the photo of the broken part: https://imgur.com/abc"],
      ],
    ] as NormalizedField[][])
      expect(signals(twin)).not.toContain("sender:links-elsewhere");
  });

  it("reads a company's name beside a free-mail address, not a person or a small studio", () => {
    expect(
      signals([
        ["name", "Ape Reach Team"],
        ["email", "apereach.outreach@gmail.com"],
        ["message", "We help local businesses grow."],
      ]),
    ).toContain("freemail:company");
    expect(
      signals([
        ["name", "Mike"],
        ["email", "mike.seo2024@gmail.com"],
        ["message", "Regards,\nMike from Monkey Digital"],
      ]),
    ).toContain("freemail:company");
    for (const twin of [
      [
        ["name", "Sara Design Studio"],
        ["email", "sara.studio@gmail.com"],
        ["message", "Hi, I'm a web designer. Could you quote 200 business cards for my studio?"],
      ],
      [
        ["name", "Mike Chen"],
        ["email", "mike.chen@gmail.com"],
        ["message", "I work in digital marketing and need a room for a team offsite of 12 people."],
      ],
      [
        ["name", "Acme Ltd"],
        ["email", "orders@acme-tools.example"],
        ["message", "Please send your catalogue."],
      ],
    ] as NormalizedField[][])
      expect(signals(twin), twin[0]![1]).not.toContain("freemail:company");
  });
});
