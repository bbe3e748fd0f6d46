/**
 * Collects requests for up to `windowMs` (or until `maxItems` items wait) and runs them as one
 * call. One batch runs at a time: while it runs, new requests queue and go together in the next
 * batch, so under load batches grow by themselves and idle latency stays at the window.
 * A request may carry a tag (its trace context, for the worker); `run` gets the batch's tags,
 * one per request that sent one, in order.
 */
export interface BatcherOptions<I, O, T = never> {
  windowMs: number;
  maxItems: number;
  run: (items: I[], tags: T[]) => Promise<ArrayLike<O>>;
}

interface Pending<I, O, T> {
  items: I[];
  tag: T | undefined;
  resolve: (out: O[]) => void;
  reject: (err: unknown) => void;
}

export class MicroBatcher<I, O, T = never> {
  readonly #options: BatcherOptions<I, O, T>;
  #queue: Pending<I, O, T>[] = [];
  #queued = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #idle: Array<() => void> = [];
  /** Sizes of the batches run so far, for logs and the benchmark. */
  readonly stats = { batches: 0, items: 0 };

  constructor(options: BatcherOptions<I, O, T>) {
    this.#options = options;
  }

  submit(items: I[], tag?: T): Promise<O[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ items, tag, resolve, reject });
      this.#queued += items.length;
      if (this.#running) return;
      if (this.#queued >= this.#options.maxItems || this.#options.windowMs === 0) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#options.windowMs);
    });
  }

  /** Resolves once nothing is queued or running. */
  drain(): Promise<void> {
    if (!this.#running && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#running || this.#queue.length === 0) return;
    // Take whole requests up to maxItems (a single larger request still goes alone).
    const batch: Pending<I, O, T>[] = [];
    let count = 0;
    while (
      this.#queue.length > 0 &&
      (batch.length === 0 || count + this.#queue[0]!.items.length <= this.#options.maxItems)
    ) {
      const next = this.#queue.shift()!;
      batch.push(next);
      count += next.items.length;
    }
    this.#queued -= count;
    this.#running = this.#runBatch(batch, count).finally(() => {
      this.#running = undefined;
      // Whatever queued meanwhile has already waited at least one batch: run it now.
      if (this.#queue.length > 0) this.#flush();
      else for (const resolve of this.#idle.splice(0)) resolve();
    });
  }

  async #runBatch(batch: Pending<I, O, T>[], count: number): Promise<void> {
    this.stats.batches++;
    this.stats.items += count;
    const tags: T[] = [];
    for (const pending of batch) if (pending.tag !== undefined) tags.push(pending.tag);
    try {
      const out = Array.from(
        await this.#options.run(
          batch.flatMap((p) => p.items),
          tags,
        ),
      );
      let at = 0;
      for (const pending of batch) {
        pending.resolve(out.slice(at, at + pending.items.length));
        at += pending.items.length;
      }
    } catch (err) {
      for (const pending of batch) pending.reject(err);
    }
  }
}
