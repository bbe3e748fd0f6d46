import { InferenceSession, Tensor } from "onnxruntime-node";
import {
  featurize,
  INPUT_IDS,
  INPUT_VALS,
  MODEL_PATH,
  OUTPUT_SCORE,
  toBatch,
  type Features,
} from "@sift/model";
import { formFields } from "../data/forms.ts";

/**
 * The five submissions of issue 16, as a new site owner sent them to spam-standard 1.2: printed
 * with the committed model's score, as an illustration. They are not a test and nothing is tuned
 * on them (five texts cannot tell a better model from a luckier one).
 */
export const EXAMPLE_SUBMISSIONS: Array<{ what: string; content: unknown; v1: number }> = [
  {
    what: "SEO outreach, gmail",
    content: {
      name: "Jason Miller",
      email: "jason.miller.web@gmail.com",
      message:
        "Hi, I noticed your website is not ranking on the first page of Google. We can help you get more traffic with our affordable SEO services. Reply for a free audit!",
    },
    v1: 0.799,
  },
  {
    what: "helpline comment",
    content: {
      comment_author: "QuickBooks Support",
      comment_author_email: "support@quickbooks-help-desk.com",
      comment_content:
        "Great post! If you face any issue with QuickBooks call our QuickBooks support phone number +1-800-… for instant help.",
    },
    v1: 0.568,
  },
  {
    what: "web-design pitch",
    content: "Are you still looking at getting your website done? We build websites from $299. Reply YES.",
    v1: 0.442,
  },
  { what: "price question", content: "Hello, I wanted to know your price.", v1: 0.157 },
  {
    what: "real order question",
    content: {
      name: "Sophie Wagner",
      email: "sophie.wagner@web.de",
      message:
        "I ordered a blue jacket last week (order 18233) and it has not arrived. Could you tell me where it is?",
    },
    v1: 0.092,
  },
];

/**
 * Scores featurised submissions with an ONNX model file (the committed one unless named), exactly
 * as the worker would, in batches of 256 so a whole data set fits.
 */
export const scoreWithModel = async (
  features: readonly Features[],
  modelPath: string = MODEL_PATH,
): Promise<number[]> => {
  const session = await InferenceSession.create(modelPath);
  const scores: number[] = [];
  for (let at = 0; at < features.length; at += 256) {
    const batch = toBatch(features.slice(at, at + 256));
    const out = await session.run({
      [INPUT_IDS]: new Tensor("int64", batch.ids, [batch.rows, batch.width]),
      [INPUT_VALS]: new Tensor("float32", batch.vals, [batch.rows, batch.width]),
    });
    scores.push(...(out[OUTPUT_SCORE]!.data as Float32Array));
  }
  await session.release();
  return scores;
};

/** Scores the examples with the committed ONNX model, exactly as the worker would. */
export const scoreExamples = (): Promise<number[]> =>
  scoreWithModel(EXAMPLE_SUBMISSIONS.map((e) => featurize(formFields(e.content))));
