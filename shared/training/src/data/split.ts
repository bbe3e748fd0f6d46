import { fnv1a } from "@sift/model";

/** Fold of a duplicate group, 0..folds-1; by hash so it is stable across runs and machines. */
export const foldOf = (group: string, folds: number, salt = ""): number => fnv1a(`${salt}${group}`) % folds;
