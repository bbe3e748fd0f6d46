/**
 * Coalesces concurrent submissions into one request: items added under the same key while the
 * event loop is busy with the current batch of I/O go out together on the next turn
 * (setImmediate), so under load one NATS request carries several submissions and idle traffic
 * waits no timer. A group is sent early when it reaches `maxItems` or `maxBytes`.
 */
export interface CoalescerOptions<I, R> {
  /**
   * Sends one group; resolves to one result per item, in order. It should not reject: a
   * rejection (a bug) is passed to every caller of the group, so none of them hangs.
   */
  send: (key: string, items: I[]) => Promise<R[]>;
  maxItems: number;
  /** Bound on the summed `sizeOf` of a group (a NATS message has a payload limit). */
  maxBytes: number;
  sizeOf: (item: I) => number;
}

interface Group<I, R> {
  items: I[];
  bytes: number;
  waiters: Array<{ resolve: (result: R) => void; reject: (err: unknown) => void }>;
}

export class Coalescer<I, R> {
  readonly #options: CoalescerOptions<I, R>;
  readonly #open = new Map<string, Group<I, R>>();

  constructor(options: CoalescerOptions<I, R>) {
    this.#options = options;
  }

  add(key: string, item: I): Promise<R> {
    const size = this.#options.sizeOf(item);
    let group = this.#open.get(key);
    if (
      group &&
      (group.items.length >= this.#options.maxItems || group.bytes + size > this.#options.maxBytes)
    ) {
      this.#send(key, group);
      group = undefined;
    }
    if (!group) {
      const fresh: Group<I, R> = { items: [], bytes: 0, waiters: [] };
      this.#open.set(key, fresh);
      setImmediate(() => this.#send(key, fresh));
      group = fresh;
    }
    group.items.push(item);
    group.bytes += size;
    return new Promise<R>((resolve, reject) => group.waiters.push({ resolve, reject }));
  }

  #send(key: string, group: Group<I, R>): void {
    if (this.#open.get(key) !== group) return; // already sent (full before its turn came)
    this.#open.delete(key);
    this.#options.send(key, group.items).then(
      (results) => group.waiters.forEach(({ resolve }, i) => resolve(results[i]!)),
      (err: unknown) => group.waiters.forEach(({ reject }) => reject(err)),
    );
  }
}
