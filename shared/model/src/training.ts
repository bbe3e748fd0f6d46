/**
 * What tools outside the model package train and evaluate with (the feedback replay trains a
 * leave-one-source-out model per site it plays).
 */
export { loadCorpus } from "./data/corpus.ts";
export { authorPool } from "./data/examples.ts";
export { formContent } from "./data/forms.ts";
export { SOURCES, type SourceName } from "./data/catalog.ts";
export { loadSource } from "./data/sources.ts";
export { trainableSources } from "./eval/protocol.ts";
export { buildArtifact } from "./train/build.ts";
export { DEFAULT_OPTIONS, trainPipeline } from "./train/pipeline.ts";
