/** ROC AUC from (log-odds, label) pairs, ties counted half; null without both labels. */
export const rocAuc = (scored: ReadonlyArray<{ z: number; label: 0 | 1 }>): number | null => {
  const spam = scored.filter((s) => s.label === 1).length;
  const clean = scored.length - spam;
  if (spam === 0 || clean === 0) return null;
  const sorted = [...scored].sort((a, b) => a.z - b.z);
  let rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]!.z === sorted[i]!.z) j++;
    const rank = (i + j + 1) / 2;
    for (let k = i; k < j; k++) if (sorted[k]!.label === 1) rankSum += rank;
    i = j;
  }
  return (rankSum - (spam * (spam + 1)) / 2) / (spam * clean);
};
