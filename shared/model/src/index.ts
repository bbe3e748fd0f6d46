export * from "./features/featurize.ts";
export * from "./features/batch.ts";
export * from "./artifact.ts";
export { INPUT_IDS, INPUT_VALS, OUTPUT_SCORE } from "./onnx/export.ts";
export { SPAM_THRESHOLD } from "./train/calibrate.ts";
