import type { NormalizedField, Reason, ResolvedKey } from "@sift/contracts";
import {
  DEFAULT_WEIGHTS,
  domainOf,
  kindsUsed,
  networkHasher,
  networkSignal,
  participation,
  submissionKeys,
  type KeyKind,
  type KeySpread,
  type NetworkSettings,
  type NetworkSignal,
  type NetworkStore,
  type NetworkWeights,
} from "@sift/network";
import type { TextPrint } from "@sift/feedback";
import { logFailure, type Clock, type Logger } from "@sift/runtime";

export type { NetworkSettings };

/**
 * The classify side of the network (docs/network.md): a submission's keys, hashed, counted for
 * its workspace in one Redis round trip that runs beside the model's request. The workspace
 * gives (counts toward others) when it takes part and is old enough; it receives when it takes
 * part. A failed lookup is logged and the verdict goes without the network: it never fails a call.
 */
interface NetworkLookupDeps {
  store: NetworkStore;
  /** networkSecret(SIFT_INTERNAL_SECRET): keys and workspace tags are HMACs under it. */
  secret: Buffer;
  settings: NetworkSettings;
  clock: Clock;
  logger: Logger;
}

export class NetworkLookup {
  readonly #deps: NetworkLookupDeps;
  readonly #hash: ReturnType<typeof networkHasher>;
  readonly #weights: NetworkWeights;
  /** The kinds of key the weights read: only these are looked up (kindsUsed). */
  readonly #kinds: ReadonlySet<KeyKind>;

  constructor(deps: NetworkLookupDeps) {
    this.#deps = deps;
    this.#hash = networkHasher(deps.secret);
    this.#weights = deps.settings.weights ?? DEFAULT_WEIGHTS;
    this.#kinds = kindsUsed(this.#weights);
  }

  /**
   * The spreads of the submission's keys, or null when the network is off for this call. `print`:
   * the fields' TextPrint, whose signature the verdict log takes too.
   */
  ask(
    key: ResolvedKey,
    fields: readonly NormalizedField[],
    print: TextPrint,
    origin: string | undefined,
    requestId: string,
  ): Promise<KeySpread[] | null> | null {
    const { settings, clock, store, logger } = this.#deps;
    const now = clock.now();
    const { ask, give } = participation(settings, key.network, now);
    if (!ask) return null;
    if (this.#kinds.size === 0) return null;
    const own = origin ? domainOf(origin) : null;
    const keys = this.#hash.keys(
      submissionKeys(fields, own ? new Set([own]) : undefined, print, this.#kinds),
    );
    if (keys.length === 0) return null;
    return store
      .spread({ keys, workspace: this.#hash.workspace(key.workspaceId), give, now })
      .catch((err: unknown) => {
        logFailure(logger, err, { requestId }, "network lookup failed");
        return null;
      });
  }

  signal(spreads: readonly KeySpread[] | null, held: boolean): NetworkSignal {
    if (!spreads || held) return { term: 0 };
    return networkSignal(spreads, this.#deps.settings.minSites, this.#weights);
  }
}

/** The worker's reasons with the network's added, strongest first, at most `max`. */
export const withNetworkReason = (
  reasons: readonly Reason[],
  reason: Reason | undefined,
  max: number,
): Reason[] =>
  reason
    ? [...reasons, reason].sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight)).slice(0, max)
    : [...reasons];
