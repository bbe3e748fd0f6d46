import { describe, expect, it } from "vitest";
import { featurize, loadLinearScorer } from "@sift/model";
import { loadOnnxScorer } from "./scorer.ts";

/** Reports carry the base score read from the weights in JS (@sift/reports): it must be the worker's. */
describe("the report's base score", () => {
  it("is the worker's base score, read off the same committed model", async () => {
    const onnx = await loadOnnxScorer({ intraOpThreads: 1 });
    const linear = loadLinearScorer();
    expect(linear.version).toBe(onnx.version);
    const forms = [
      [["message", "Cheap SEO for your site, call +1 800 555 0100 today"]],
      [
        ["name", "Ann"],
        ["email", "ann@example.com"],
        ["message", "Is the blue armchair still for sale?"],
      ],
      [["comment_content", "Great post!! visit https://bit.ly/xyz for free followers"]],
    ] as Array<Array<[string, string]>>;
    const features = forms.map((f) => featurize(f));
    const scores = await onnx.score(features);
    features.forEach((f, i) => {
      const p = 1 / (1 + Math.exp(-linear.logOdds(f)));
      expect(p).toBeCloseTo(scores[i]!, 5);
      // The worker's own weights (what it rescores kept examples with) give the same score.
      expect(onnx.linear!.logOdds(f)).toBeCloseTo(linear.logOdds(f), 5);
    });
    await onnx.close();
  });
});
