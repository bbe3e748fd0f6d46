import { describe, expect, it } from "vitest";
import {
  decodeSignature,
  encodeSignature,
  fingerprint,
  foldText,
  similarity,
  TextPrint,
} from "./fingerprint.ts";
import { NEAR_DUPLICATE, NearDuplicateIndex } from "./near-duplicates.ts";

const text = (message: string) => fingerprint([["message", message]]);
const PITCH =
  "Hello, we offer a premium listing for your company in our business directory, first month free. Reply today.";

describe("fingerprint", () => {
  it("folds case, digits, link paths and punctuation, so a resend with other numbers is the same", () => {
    expect(foldText([["m", "Call 0800-123 NOW: https://www.Shop.example/a/b?utm=1"]])).toBe(
      "call 0 0 now shop.example",
    );
    expect(similarity(text("Order 4471 ships Monday!"), text("order 9012 ships monday"))).toBe(1);
  });

  it("keeps a one-word edit of a sentence near, and an unrelated message far", () => {
    const edited = PITCH.replace("premium", "special");
    expect(similarity(text(PITCH), text(edited))).toBeGreaterThanOrEqual(NEAR_DUPLICATE);
    expect(
      similarity(text(PITCH), text("Is the shop open on Sunday? I would like to pick up my parcel.")),
    ).toBeLessThan(0.2);
  });

  it("round-trips through its stored form, and refuses a signature of the wrong length", () => {
    const sig = text(PITCH);
    expect(decodeSignature(encodeSignature(sig))).toEqual(sig);
    expect(decodeSignature("AAAA")).toBeNull();
  });

  it("works out a TextPrint's folded text and signature as foldText and fingerprint do, once each", () => {
    const fields: Array<[string, string]> = [
      ["name", "Sam"],
      ["message", PITCH],
    ];
    const print = new TextPrint(fields);
    expect(print.folded).toBe(foldText(fields));
    expect(print.signature).toEqual(fingerprint(fields));
    // The same object on a second read: the work is not done again.
    expect(print.signature).toBe(print.signature);
    expect(print.folded).toBe(print.folded);
  });

  it("gives short and empty texts a stable signature", () => {
    expect(similarity(text("hi"), text("hi"))).toBe(1);
    expect(similarity(text(""), text(""))).toBe(1);
  });
});

describe("NearDuplicateIndex", () => {
  it("finds the most similar report at or above the threshold, the latest on a tie", () => {
    const index = new NearDuplicateIndex([text(PITCH), text(PITCH)], ["spam", "clean"]);
    expect(index.find(text(PITCH.replace("premium", "special")))).toMatchObject({ label: "clean" });
    expect(index.find(text("Where is my parcel? It was due on Friday."))).toBeNull();
    expect(index.size).toBe(2);
  });

  it("finds a near-copy among thousands of unrelated reports, and nothing for an unrelated text", () => {
    const words = ["order", "parcel", "invoice", "garden", "ticket", "refund", "sofa", "train", "lesson"];
    const reports = Array.from({ length: 3_000 }, (_, i) =>
      text(
        `Note ${words[i % 9]} ${words[(i * 7) % 9]} ${i.toString(36)}x${(i * 7919).toString(36)} ${words[(i * 5) % 9]}`,
      ),
    );
    const labels = reports.map((): "clean" => "clean");
    const index = new NearDuplicateIndex([...reports, text(PITCH)], [...labels, "spam"]);
    expect(index.find(text(PITCH.replace("first month", "the first month")))).toMatchObject({
      label: "spam",
    });
    expect(index.find(text("Where is my parcel? It was due on Friday."))).toBeNull();
  });
});

describe("fingerprint of a form", () => {
  it("leaves the sender out: the same message from another name and address is the same", () => {
    const from = (name: string, email: string) =>
      fingerprint([
        ["your-name", name],
        ["your-email", email],
        ["your-message", PITCH],
      ]);
    expect(similarity(from("Linda", "linda@mail.example"), from("Maria K.", "mk1990@other.example"))).toBe(1);
    expect(similarity(fingerprint([["name", "Ann"]]), fingerprint([["name", "Ann"]]))).toBe(1);
  });
});
