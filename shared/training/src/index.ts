/**
 * What tools outside the training package use: the feedback replay trains a leave-one-source-out
 * model per site it plays, and the featuriser benchmark times the model card's example
 * submissions.
 */
export { loadCorpus } from "./data/corpus.ts";
export { authorPool } from "./data/examples.ts";
export { formContent, formFields } from "./data/forms.ts";
export { SOURCES, type SourceName } from "./data/catalog.ts";
export { loadSource } from "./data/sources.ts";
export { wholeMessages } from "./data/whole.ts";
// The one seeded generator, shared with the deployment's own training (@sift/learning).
export { seededRandom, shuffled } from "@sift/learning";
export { EXAMPLE_SUBMISSIONS } from "./eval/submissions.ts";
export { trainableSources } from "./eval/protocol.ts";
export { buildArtifact } from "./train/build.ts";
export { DEFAULT_OPTIONS, scoreOf, trainPipeline } from "./train/pipeline.ts";
