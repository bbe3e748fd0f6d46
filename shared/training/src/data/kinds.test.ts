import { describe, expect, it } from "vitest";
import { kindOf } from "./kinds.ts";

describe("kindOf", () => {
  it("reads a janitr_x post's most telling label: a phish that also promotes is a phish", () => {
    expect(kindOf("janitr_x", "promo|topic_crypto|phishing")).toBe("phishing");
    expect(kindOf("janitr_x", "topic_crypto|recovery_scam|scam")).toBe("phishing");
    expect(kindOf("janitr_x", "topic_crypto|scam|spam")).toBe("scam");
    expect(kindOf("janitr_x", "bot|topic_crypto|lead_gen|spam")).toBe("outreach");
    expect(kindOf("janitr_x", "reply_spam|ai_slop")).toBe("other spam");
  });

  it("reads Thai SMS scams apart from its advertising", () => {
    expect(kindOf("thai_sms", "scam")).toBe("scam");
    expect(kindOf("thai_sms", "spam")).toBe("outreach");
  });

  it("gives no kind where the set names none", () => {
    expect(kindOf("stackexchange_spam", "spam")).toBeUndefined();
    expect(kindOf("janitr_x", undefined)).toBeUndefined();
  });
});
