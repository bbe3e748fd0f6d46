import { describe, expect, it } from "vitest";
import { emailSignals, phoneSignals } from "./contact.ts";

const email = (address: string, names: string[] = []): string[] => {
  const out: string[] = [];
  emailSignals(address, names, out);
  return out;
};
const phone = (text: string): string[] => {
  const out: string[] = [];
  phoneSignals(text, out);
  return out;
};

describe("e-mail signals", () => {
  it("marks throw-away services and free mail, not a company domain", () => {
    expect(email("x@mailinator.com")).toContain("email:disposable");
    expect(email("anna@gmail.com")).toEqual(["email:free"]);
    expect(email("anna@bakery-keller.de")).toEqual(["email:tld:country"]);
  });

  it("notices a local part that shares nothing with the name beside it", () => {
    expect(email("seo.rank.pro@gmail.com", ["Mary Smith"])).toContain("email:unrelated-to-name");
    expect(email("m.smith84@gmail.com", ["Mary Smith"])).not.toContain("email:unrelated-to-name");
    expect(email("marysmith@gmail.com", ["Mary"])).not.toContain("email:unrelated-to-name");
    // Her own domain names her: a role address there is hers.
    expect(email("hello@chloemartinphoto.co.uk", ["Chloe Martin"])).not.toContain("email:unrelated-to-name");
    expect(email("hello@seo-rank-pro.co.uk", ["Chloe Martin"])).toContain("email:unrelated-to-name");
    // A free-mail domain says nothing of its user.
    expect(email("hello@gmail.com", ["Gmail Smith"])).toContain("email:unrelated-to-name");
    // Without a name there is nothing to compare with.
    expect(email("seo.rank.pro@gmail.com")).not.toContain("email:unrelated-to-name");
  });

  it("notices a long digit run in the local part", () => {
    expect(email("john48213@yahoo.com")).toContain("email:digits");
    expect(email("john@yahoo.com")).not.toContain("email:digits");
  });
});

describe("phone signals", () => {
  it("finds numbers in their usual spellings", () => {
    expect(phone("call me on +49 176 23456789 please")).toEqual(["phone"]);
    expect(phone("(555) 201-7788")).toEqual(["phone"]);
    expect(phone("order 18233 arrived")).toEqual([]);
  });

  it("tells helpline phrasing around a number from a number alone", () => {
    expect(phone("QuickBooks support phone number +1-800-555-0199 for instant help")).toEqual([
      "phone:toll-free",
      "phone:with-support-words",
    ]);
    expect(phone("our customer service team will help")).toEqual(["support-words"]);
  });
});
