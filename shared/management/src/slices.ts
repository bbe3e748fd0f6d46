/**
 * How many workspaces a page reads at once. The management service's Redis client pipelines
 * every command issued in one turn, and Redis answers one connection's pipeline whole before it
 * reads another's: a page of 1,000 workspaces read at once is 2,000 commands, several
 * milliseconds in which every classify and verify call waits on its own Redis command (issue 58:
 * the heavy /v1 load beside them). In slices of this many, their commands go in between.
 */
export const READ_SLICE = 100;

/** `read` of every item, `size` at a time, in order: a page's reads as Redis-sized slices. */
export const readInSlices = async <T, R>(
  items: readonly T[],
  read: (item: T) => Promise<R>,
  size = READ_SLICE,
): Promise<R[]> => {
  const out: R[] = [];
  for (let at = 0; at < items.length; at += size)
    out.push(...(await Promise.all(items.slice(at, at + size).map(read))));
  return out;
};
