/**
 * The scorer graph's writer moved to @sift/model (issue 53): a deployment's own model is
 * exported by a product package (@sift/learning), which may not import the training tools.
 */
export { exportOnnx, type ExportMeta, type GraphWeights } from "@sift/model";
