/**
 * A score (the spec's probability of spam, 0-1) from log-odds: the logistic function. The model,
 * a site's layer and correction, calibration and the evaluations all map log-odds to a score
 * with this one, so a score means the same wherever it was made.
 */
export const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
