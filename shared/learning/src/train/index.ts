/** A deployment's own model (issue 53): what `sift model train` and the replay bench run. */
export * from "./auc.ts";
export * from "./tail.ts";
export * from "./candidate.ts";
export * from "./compare.ts";
export * from "./prior.ts";
export * from "./canary.ts";
export * from "./train.ts";
export * from "./random.ts";
