import {
  decodeCorrections,
  FeedbackStore,
  ReportLayer,
  ReviewedScores,
  SHARED_LAYER,
  SiteCorrection,
  type WorkspaceState,
} from "@sift/feedback";
import type { Logger } from "@sift/runtime";

export interface LearnedState {
  state: WorkspaceState | null;
  shared: ReportLayer | null;
}

/** Learned state for scoring: what a worker knows of a workspace, and of the shared layer. */
export interface WorkspaceStates {
  get(workspaceId: string): Promise<LearnedState>;
  /** A learner announced a new version: reload it in the background if this worker holds it. */
  announce(workspaceId: string, version: number): void;
}

interface Entry {
  state: WorkspaceState | null;
  checkedAt: number;
  /** The newest version announced or seen in Redis. */
  wanted: number;
  loading?: Promise<void>;
}

/**
 * How long a cold workspace's first request waits for its state before it is scored with the
 * base model alone: one Redis round trip is ~0.1 ms, a 10,000-report workspace ~10 ms.
 */
const COLD_LOAD_MS = 250;
/** Each held workspace's version is checked at most this often (catches CLI list changes). */
const REVALIDATE_MS = 1_000;
/** Workspaces held per worker; the least recently used is dropped past this. */
const MAX_WORKSPACES = 500;

/**
 * A bounded, versioned cache of workspaces' learned state, loaded from Redis. Scoring never
 * waits on Redis for a workspace it already holds (stale state is refreshed in the background),
 * and a worker that cannot load a workspace scores it with the base model and logs why: it
 * never fails a request for it.
 */
export class CachedWorkspaceStates implements WorkspaceStates {
  readonly #store: FeedbackStore;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(deps: { store: FeedbackStore; logger: Logger; now?: () => number }) {
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#now = deps.now ?? Date.now;
  }

  async get(workspaceId: string): Promise<LearnedState> {
    const [own, shared] = await Promise.all([this.#entry(workspaceId), this.#entry(SHARED_LAYER)]);
    return { state: own.state, shared: shared.state?.own ?? null };
  }

  announce(workspaceId: string, version: number): void {
    const entry = this.#entries.get(workspaceId);
    if (!entry || version <= entry.wanted) return;
    entry.wanted = version;
    void this.#load(workspaceId, entry);
  }

  async #entry(id: string): Promise<Entry> {
    let entry = this.#entries.get(id);
    if (entry) {
      // Most recently used last, so the first key is the one to drop.
      this.#entries.delete(id);
      this.#entries.set(id, entry);
      if (this.#now() - entry.checkedAt > REVALIDATE_MS) void this.#revalidate(id, entry);
      return entry;
    }
    entry = { state: null, checkedAt: this.#now(), wanted: 0 };
    this.#entries.set(id, entry);
    if (this.#entries.size > MAX_WORKSPACES) this.#entries.delete(this.#entries.keys().next().value!);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.#load(id, entry),
      new Promise((resolve) => (timer = setTimeout(resolve, COLD_LOAD_MS))),
    ]);
    clearTimeout(timer);
    return entry;
  }

  async #revalidate(id: string, entry: Entry): Promise<void> {
    entry.checkedAt = this.#now();
    try {
      const version = await this.#store.version(id);
      if (version !== (entry.state?.version ?? 0)) {
        entry.wanted = Math.max(entry.wanted, version);
        await this.#load(id, entry);
      }
    } catch (err) {
      this.#logger.warn({ err: (err as Error).message, workspaceId: id }, "learned state check failed");
    }
  }

  #load(id: string, entry: Entry): Promise<void> {
    entry.loading ??= (async () => {
      const before = entry.state?.version ?? -1;
      try {
        const snapshot = await this.#store.snapshot(id);
        entry.state = {
          version: snapshot.version,
          own: snapshot.spam + snapshot.clean > 0 ? new ReportLayer(snapshot) : null,
          lists: snapshot.lists,
          strictness: snapshot.strictness,
          reviewed: snapshot.reviewed ? new ReviewedScores(snapshot.reviewed) : null,
          languages: snapshot.languages,
          correction: SiteCorrection.fit(decodeCorrections(snapshot.corrections)),
        };
      } catch (err) {
        this.#logger.warn(
          { err: (err as Error).message, workspaceId: id },
          "learned state not loaded; scoring with the base model",
        );
      } finally {
        entry.checkedAt = this.#now();
        entry.loading = undefined;
      }
      // An announcement that arrived during the load asks for a newer version: load again.
      const now = entry.state?.version ?? -1;
      if (now > before && entry.wanted > now) await this.#load(id, entry);
    })();
    return entry.loading;
  }
}
