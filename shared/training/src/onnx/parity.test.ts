import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { InferenceSession, Tensor } from "onnxruntime-node";
import { describe, expect, it } from "vitest";
import {
  featurize,
  FEATURIZER_VERSION,
  INPUT_IDS,
  INPUT_VALS,
  MODEL_PATH,
  OUTPUT_SCORE,
  readModelMeta,
  toBatch,
  type Features,
} from "@sift/model";
import { formFields } from "../data/forms.ts";
import type { Example } from "../data/examples.ts";
import { buildArtifact } from "../train/build.ts";
import { DEFAULT_OPTIONS, scoreOf, trainPipeline } from "../train/pipeline.ts";
import { seededRandom } from "@sift/learning";
import { exportOnnx } from "./export.ts";

/** A few hundred varied submissions: scripts, links, addresses, lengths, shapes. */
const SNIPPETS = [
  "Hi, I'd like a quote for a new kitchen. Could you call me on Tuesday?",
  "CONGRATULATIONS! You won a $1000 gift card, claim now at http://bit.ly/claim-now",
  "Ich habe eine Frage zu Ihrer Rechnung vom 3. März.",
  "ดูดวงรายวันกับโหรชื่อดัง สมัคร*155*34# 9บ/sms/วัน",
  "Сделаю сайт под ключ недорого, пишите в телеграм @webmaster",
  "मुझे आपकी सेवा के बारे में जानकारी चाहिए",
  "𝐄𝐚𝐫𝐧 $5000 𝐰𝐞𝐞𝐤𝐥𝐲 from home!!! DM me",
  "great post, thanks for sharing 🙂",
  "Visit https://example.com/path?x=1 and mail me at someone@example.org",
  "Bonjour, je voudrais réserver une table pour 4 personnes samedi soir.",
];

const submissions = (): unknown[] => {
  const random = seededRandom(7);
  const out: unknown[] = [];
  for (let i = 0; i < 300; i++) {
    const pick = () => SNIPPETS[Math.floor(random() * SNIPPETS.length)]!;
    const message = Array.from({ length: 1 + Math.floor(random() * 4) }, pick).join(" ");
    out.push(
      i % 3 === 0
        ? message
        : {
            name: `Person ${i}`,
            email: `p${i}@mail${i % 7}.example`,
            message,
            website: i % 5 === 0 ? "https://shop.example.xyz" : null,
          },
    );
  }
  return out;
};

const run = async (session: InferenceSession, items: Features[]): Promise<Float32Array> => {
  const batch = toBatch(items);
  const out = await session.run({
    [INPUT_IDS]: new Tensor("int64", batch.ids, [batch.rows, batch.width]),
    [INPUT_VALS]: new Tensor("float32", batch.vals, [batch.rows, batch.width]),
  });
  return out[OUTPUT_SCORE]!.data as Float32Array;
};

describe("ONNX export", () => {
  it("scores like the trainer's forward pass, within 1e-5, for a random model", async () => {
    const random = seededRandom(11);
    const weights = Float32Array.from({ length: (1 << 18) + 1 }, (_, i) =>
      i === 1 << 18 ? 0 : (random() - 0.5) * 4,
    );
    const graph = { weights, bias: -0.3, scale: 1.7, shift: 0.2 };
    const session = await InferenceSession.create(
      exportOnnx(graph, { version: "t", docString: "", metadata: {} }),
    );
    const items = submissions().map((s) => featurize(formFields(s)));
    const scores = await run(session, items);
    items.forEach((f, i) => {
      let z = graph.bias;
      for (let k = 0; k < f.ids.length; k++) z += weights[f.ids[k]!]! * f.vals[k]!;
      const expected = 1 / (1 + Math.exp(-(graph.scale * z + graph.shift)));
      expect(Math.abs(scores[i]! - expected)).toBeLessThan(1e-5);
    });
  });

  it("gives the same score to an item alone and inside a padded batch", async () => {
    const session = await InferenceSession.create(MODEL_PATH);
    const items = submissions().map((s) => featurize(formFields(s)));
    const batched = await run(session, items);
    for (const i of [0, 17, 123, 299]) {
      const [alone] = await run(session, [items[i]!]);
      expect(Math.abs(alone! - batched[i]!)).toBeLessThan(1e-6);
    }
  });
});

describe("the trainer and its export", () => {
  it("give the same scores, within 1e-5, on 300 submissions (a small real training run)", async () => {
    const examples: Example[] = submissions().map((content, i) => ({
      source: "sms_spam",
      group: String(i),
      shape: typeof content === "string" ? "string" : "name/email/message",
      label: /won|Earn|telegram|quote/.test(JSON.stringify(content)) ? 1 : 0,
      features: featurize(formFields(content)),
    }));
    const options = { ...DEFAULT_OPTIONS, epochs: 2 };
    const model = trainPipeline(examples, options);
    const { onnx, meta } = buildArtifact(model, examples, options);
    const session = await InferenceSession.create(onnx);
    const scores = await run(
      session,
      examples.map((e) => e.features),
    );
    examples.forEach((e, i) => expect(Math.abs(scores[i]! - scoreOf(model, e))).toBeLessThan(1e-5));
    expect(meta.version).toMatch(/^1\.\d+\.0\+[0-9a-f]{10}$/);
  });
});

describe("the committed model", () => {
  it("is the file its metadata describes and scores in [0, 1]", async () => {
    const meta = readModelMeta();
    expect(createHash("sha256").update(readFileSync(MODEL_PATH)).digest("hex")).toBe(meta.sha256);
    expect(meta.featurizerVersion).toBe(FEATURIZER_VERSION);
    const session = await InferenceSession.create(MODEL_PATH);
    const scores = await run(
      session,
      submissions().map((s) => featurize(formFields(s))),
    );
    for (const score of scores) expect(score >= 0 && score <= 1).toBe(true);
  });

  it("ranks an obvious scam above an ordinary enquiry", async () => {
    const session = await InferenceSession.create(MODEL_PATH);
    const [scam, enquiry] = await run(session, [
      featurize(
        formFields({
          name: "Mark",
          email: "mark@gmail.com",
          message:
            "URGENT! You have won a guaranteed £1000 cash prize. Claim now: call 09061701461 or visit http://bit.ly/win-cash",
        }),
      ),
      featurize(
        formFields({
          name: "Anna Keller",
          email: "anna.keller@gmx.de",
          message:
            "Hello, could you tell me whether the workshop on Saturday still has free places? Thanks, Anna",
        }),
      ),
    ]);
    expect(scam).toBeGreaterThanOrEqual(0.8);
    expect(enquiry).toBeLessThan(0.5);
  });
});
