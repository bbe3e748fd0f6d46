import type { ModelVersions } from "@sift/learning";
import type { Logger } from "@sift/runtime";
import type { Scorer } from "./scorer.ts";

/**
 * Keeps a worker on the version of its model the deployment has in service (issue 53): reads
 * ModelVersions' `serving` key every `pollMs` (one GET; a second by default, so every worker
 * switches within about a second of `sift model promote` or `rollback`, with no message bus of
 * the CLI's to reach them), and when it names another version loads that one's bytes, builds its
 * session and hands it to `switchTo`. The shipped scorer is kept for the worker's life (a
 * rollback to it needs nothing loaded); a retired deployment version is closed once it answered
 * what it took. A version that cannot be loaded (another featuriser, bad bytes) is logged and
 * the worker keeps what it serves; Redis down means no change.
 */
export interface ServingModelDeps {
  versions: Pick<ModelVersions, "serving" | "get">;
  shipped: Scorer;
  load: (onnx: Uint8Array, meta: string) => Promise<Scorer>;
  switchTo: (scorer: Scorer) => { retired: Promise<void>; previous: Scorer };
  pollMs: number;
  logger: Logger;
}

export class ServingModel {
  readonly #deps: ServingModelDeps;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #current: string | null = null;
  #scorer: Scorer | undefined;
  /** A version that failed to load: not tried again until the serving key changes. */
  #refused: string | null = null;
  #checking: Promise<void> | undefined;

  constructor(deps: ServingModelDeps) {
    this.#deps = deps;
  }

  /** Checks once now (a start serves the version in service from its first request), then polls. */
  async start(): Promise<void> {
    await this.check();
    const tick = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void this.check().finally(tick), this.#deps.pollMs);
      this.#timer.unref();
    };
    tick();
  }

  /** Stops polling; closes the deployment version it serves (call after the worker stopped). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#checking;
    if (this.#scorer && this.#scorer !== this.#deps.shipped) await this.#scorer.close();
    this.#scorer = undefined;
  }

  /** One look at the serving key (and a switch when it moved). */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = undefined));
    return this.#checking;
  }

  async #check(): Promise<void> {
    const { logger } = this.#deps;
    let wanted: string | null;
    try {
      wanted = await this.#deps.versions.serving();
    } catch {
      return;
    }
    if (wanted === this.#current || (wanted !== null && wanted === this.#refused)) return;
    if (wanted !== this.#refused) this.#refused = null;
    let next: Scorer;
    if (wanted === null) next = this.#deps.shipped;
    else {
      try {
        const stored = await this.#deps.versions.get(wanted);
        if (!stored) throw new Error("not stored");
        next = await this.#deps.load(stored.onnx, stored.meta);
      } catch (err) {
        this.#refused = wanted;
        logger.error({ err, version: wanted }, "model version not loaded; serving the previous one");
        return;
      }
    }
    if (this.#stopped) {
      if (next !== this.#deps.shipped) await next.close();
      return;
    }
    const { retired, previous } = this.#deps.switchTo(next);
    this.#current = wanted;
    this.#scorer = next;
    if (previous !== this.#deps.shipped && previous !== next)
      void retired.then(() => previous.close()).catch(() => undefined);
  }
}
