import {
  ReportStore,
  learnedScores,
  ReportLayer,
  SHARED_LAYER,
  type Rescorer,
  type WorkspaceState,
} from "@sift/feedback";
import type { Logger } from "@sift/runtime";

export interface LearnedState {
  state: WorkspaceState | null;
  shared: ReportLayer | null;
}

/** Learned state for scoring: what a worker knows of a workspace, and of the shared layer. */
export interface WorkspaceStates {
  /**
   * The workspace's state, its per-site placement and correction derived against `base` (the
   * version the asking generation serves; absent: every report's stored score). A state not yet
   * derived against it is answered with the one held and re-derived in the background.
   */
  get(workspaceId: string, base?: Rescorer | null): Promise<LearnedState>;
  /** A learner announced a new version: reload it in the background if this worker holds it. */
  announce(workspaceId: string, version: number): void;
}

interface Entry {
  /** The state derived against the base asked for last (or none). */
  state: WorkspaceState | null;
  /** The state per version it was derived against (rescore.ts). */
  derived: Map<string, WorkspaceState>;
  /** The versions asked for, with when each was last asked: the next load derives against these. */
  bases: Map<string, { base: Rescorer; askedAt: number }>;
  checkedAt: number;
  /** When the last report the held state holds came (the report lag's start). */
  reportedAt: number | null;
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
/**
 * A version not asked for in this long is not derived against at the next load: after a switch,
 * the retired version's last requests finish within a batch, so only the new one stays.
 */
const BASE_IDLE_MS = 10_000;
/** Workspaces held per worker; the least recently used is dropped past this. */
const MAX_WORKSPACES = 500;

/**
 * A bounded, versioned cache of workspaces' learned state, loaded from Redis. Scoring never
 * waits on Redis for a workspace it already holds (stale state is refreshed in the background),
 * and a worker that cannot load a workspace scores it with the base model and logs why: it
 * never fails a request for it.
 */
export class CachedWorkspaceStates implements WorkspaceStates {
  readonly #store: ReportStore;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #observeLag: (seconds: number) => void;
  readonly #entries = new Map<string, Entry>();

  constructor(deps: {
    store: ReportStore;
    logger: Logger;
    now?: () => number;
    /**
     * The report lag (DESIGN: sift_report_lag_seconds): from a workspace's last report to the
     * moment this worker answers with the state that holds it, observed on every load that
     * brings a newer report to a workspace the worker already held.
     */
    observeLag?: (seconds: number) => void;
  }) {
    this.#store = deps.store;
    this.#logger = deps.logger;
    this.#now = deps.now ?? Date.now;
    this.#observeLag = deps.observeLag ?? (() => {});
  }

  async get(workspaceId: string, base?: Rescorer | null): Promise<LearnedState> {
    const [own, shared] = await Promise.all([
      this.#entry(workspaceId, base ?? null),
      this.#entry(SHARED_LAYER, null),
    ]);
    if (!base) return { state: own.state, shared: shared.state?.own ?? null };
    const derived = own.derived.get(base.version);
    // Not derived against this version yet (the worker switched): the state held answers, and
    // the next load (now, in the background) derives against it too.
    if (!derived && own.state && !own.loading) void this.#load(workspaceId, own);
    return { state: derived ?? own.state, shared: shared.state?.own ?? null };
  }

  announce(workspaceId: string, version: number): void {
    const entry = this.#entries.get(workspaceId);
    if (!entry || version <= entry.wanted) return;
    entry.wanted = version;
    void this.#load(workspaceId, entry);
  }

  async #entry(id: string, base: Rescorer | null): Promise<Entry> {
    let entry = this.#entries.get(id);
    if (entry) {
      if (base) entry.bases.set(base.version, { base, askedAt: this.#now() });
      // Most recently used last, so the first key is the one to drop.
      this.#entries.delete(id);
      this.#entries.set(id, entry);
      if (this.#now() - entry.checkedAt > REVALIDATE_MS) void this.#revalidate(id, entry);
      // Requests that came while its first load runs wait for it as the first one does: a
      // workspace's first calls are answered with its state, not the base model's alone.
      if (!entry.state && entry.loading) await this.#coldWait(entry.loading);
      return entry;
    }
    entry = {
      state: null,
      derived: new Map(),
      bases: new Map(),
      checkedAt: this.#now(),
      reportedAt: null,
      wanted: 0,
    };
    if (base) entry.bases.set(base.version, { base, askedAt: this.#now() });
    this.#entries.set(id, entry);
    if (this.#entries.size > MAX_WORKSPACES) this.#entries.delete(this.#entries.keys().next().value!);
    await this.#coldWait(this.#load(id, entry));
    return entry;
  }

  /** Waits for a first load, at most COLD_LOAD_MS. */
  async #coldWait(loading: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([loading, new Promise((resolve) => (timer = setTimeout(resolve, COLD_LOAD_MS)))]);
    clearTimeout(timer);
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
      let loaded = false;
      try {
        const snapshot = await this.#store.snapshot(id);
        const common = {
          version: snapshot.version,
          own: snapshot.spam + snapshot.clean > 0 ? new ReportLayer(snapshot) : null,
          lists: snapshot.lists,
          strictness: snapshot.strictness,
          languages: snapshot.languages,
          expectedLanguages: snapshot.expectedLanguages,
        };
        const now = this.#now();
        for (const [version, asked] of entry.bases)
          if (now - asked.askedAt > BASE_IDLE_MS && entry.bases.size > 1) entry.bases.delete(version);
        const derived = new Map<string, WorkspaceState>();
        let latest: WorkspaceState | null = null;
        for (const { base } of entry.bases.values()) {
          const { reviewed, correction, earned } = learnedScores(snapshot, base);
          latest = { ...common, reviewed, correction, earned };
          derived.set(base.version, latest);
        }
        if (!latest) {
          const { reviewed, correction, earned } = learnedScores(snapshot, null);
          latest = { ...common, reviewed, correction, earned };
        }
        const held = entry.state !== null;
        entry.derived = derived;
        entry.state = latest;
        loaded = true;
        const reportedAt = snapshot.updatedAt ?? null;
        if (held && reportedAt !== null && reportedAt > (entry.reportedAt ?? 0))
          this.#observeLag(Math.max(0, this.#now() - reportedAt) / 1000);
        entry.reportedAt = reportedAt;
      } catch (err) {
        this.#logger.warn(
          { err: (err as Error).message, workspaceId: id },
          "learned state not loaded; scoring with the base model",
        );
      } finally {
        entry.checkedAt = this.#now();
        entry.loading = undefined;
      }
      // An announcement that arrived during the load asks for a newer version, or a version it
      // did not derive against was asked for meanwhile: load again.
      const now = entry.state?.version ?? -1;
      const underived = [...entry.bases.keys()].some((v) => !entry.derived.has(v));
      if ((now > before && entry.wanted > now) || (loaded && underived)) await this.#load(id, entry);
    })();
    return entry.loading;
  }
}
