import type { Logger } from "@sift/runtime";
import type { EncodedEntry } from "./entry.ts";
import { LOG_KEY_COUNT } from "./layout.ts";
import type { RedisVerdictLog } from "./log.ts";
import { appendLua } from "./scripts.ts";
import { logIsOn } from "./settings.ts";
import type { LogSettings, VerdictInput } from "./types.ts";

/**
 * How long an entry may wait for a ride: the console shows a verdict within 2 s (issue 28), and
 * a busy workspace's next classify call comes much sooner than this.
 */
const FLUSH_MS = 250;
/** Entries a workspace may have waiting; past it (Redis away) the oldest are dropped, not the process's memory. */
const MAX_WAITING = 1_000;

interface Waiting {
  settings: LogSettings;
  entries: EncodedEntry[];
}

/**
 * The write path's side of the log. `record` encodes an answered call (redaction or sealing
 * included) and keeps it; the entries then ride the workspace's next usage admission (the
 * classify call's own Redis script: no round trip of their own, `take`), or, when no call
 * comes within FLUSH_MS, go in one pipelined write per flush (`flush`). Nothing here ever
 * delays or changes an answer: `record` is synchronous and cannot throw, and a failed write is
 * logged and dropped.
 */
export class VerdictRecorder {
  /** The usage meter's rider (@sift/keystore usage.ts): the append script at any offset. */
  readonly lua = (keyOffset: number, argOffset: number): string => appendLua(keyOffset, argOffset, true);
  readonly keys = LOG_KEY_COUNT;
  readonly #log: RedisVerdictLog;
  readonly #logger: Logger;
  readonly #waiting = new Map<string, Waiting>();
  #timer: NodeJS.Timeout | undefined;
  #dropped = 0;

  constructor(deps: { log: RedisVerdictLog; logger: Logger }) {
    this.#log = deps.log;
    this.#logger = deps.logger;
  }

  /** Keeps the call's entry for the next ride; false when the log is off or the entry could not be made. */
  record(input: VerdictInput, settings: LogSettings): boolean {
    if (!logIsOn(settings)) return false;
    let entry: EncodedEntry;
    try {
      entry = this.#log.encode(input, settings);
    } catch (err) {
      this.#logger.warn({ err, workspaceId: input.workspaceId }, "verdict not recorded");
      return false;
    }
    const waiting = this.#waiting.get(input.workspaceId);
    if (waiting) {
      waiting.settings = settings;
      waiting.entries.push(entry);
      if (waiting.entries.length > MAX_WAITING) {
        waiting.entries.shift();
        this.#dropped++;
      }
    } else {
      this.#waiting.set(input.workspaceId, { settings, entries: [entry] });
    }
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
    return true;
  }

  /** What rides this workspace's admission (keys, then arguments), taken from the waiting; null when nothing waits. */
  take(workspaceId: string): { keys: string[]; args: Array<string | number> } | null {
    const waiting = this.#waiting.get(workspaceId);
    if (!waiting) return null;
    this.#waiting.delete(workspaceId);
    const [keys, args] = this.#log.appendArgs(workspaceId, waiting.settings, waiting.entries);
    return { keys, args };
  }

  /** Writes everything waiting, one pipelined append per workspace. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#dropped > 0) {
      this.#logger.warn({ dropped: this.#dropped }, "verdict log entries dropped while Redis was away");
      this.#dropped = 0;
    }
    const batch = [...this.#waiting];
    this.#waiting.clear();
    if (batch.length === 0) return;
    try {
      await this.#log.appendMany(
        batch.map(([workspaceId, w]) => ({ workspaceId, settings: w.settings, entries: w.entries })),
      );
    } catch (err) {
      this.#logger.warn({ err, workspaces: batch.length }, "verdict log entries not written");
    }
  }

  /** Entries waiting now (tests and metrics). */
  get waitingCount(): number {
    let n = 0;
    for (const w of this.#waiting.values()) n += w.entries.length;
    return n;
  }

  async stop(): Promise<void> {
    await this.flush();
  }
}
