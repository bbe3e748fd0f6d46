import { Queue, type ConnectionOptions } from "bullmq";
import { ATTEMPT_MEMORY_MS, FEEDBACK_QUEUE, type ReportJob } from "@sift/contracts";
import { loadLinearScorer, MODEL_PATH, type LinearScorer } from "@sift/model";
import { loadLanguageIdentifier, type LanguageIdentifier } from "@sift/model/language";

/** Where reports wait for the learner. */
export interface ReportQueue {
  add(report: ReportJob): Promise<void>;
  close(): Promise<void>;
  /**
   * The base score a report carries (its stored score, for per-site placement and the site's
   * correction where its example is not kept), or null: none. Absent: none.
   */
  baseScorer?(): LinearScorer | null;
  /**
   * The identifier of a report's language (counted beside the site's reviews for its expected
   * languages and `unexpected_language`'s weight). Absent: reports carry no language.
   */
  languageIdentifier?(): Promise<LanguageIdentifier>;
}

/** How many finished jobs BullMQ keeps for inspection; reports hold no text, only hashes. */
const KEEP_DONE = 100;

export class BullReportQueue implements ReportQueue {
  readonly #queue: Queue;
  readonly #modelPath: string;
  #scorer: LinearScorer | null | undefined;
  #identifier: Promise<LanguageIdentifier> | undefined;

  /**
   * `modelPath`: the model whose weights score a report (about 1 MB, read on the first report):
   * the committed model, or the file `SIFT_MODEL_PATH` names (set it for classify and the
   * console as for the workers). The workers rescore a report's kept example with the version
   * they serve, so this score matters only for reports whose example is gone. A file that
   * cannot be read gives reports without a score.
   */
  constructor(deps: { connection: ConnectionOptions; prefix: string; modelPath?: string | undefined }) {
    this.#queue = new Queue(FEEDBACK_QUEUE, { connection: deps.connection, prefix: deps.prefix });
    this.#modelPath = deps.modelPath || process.env["SIFT_MODEL_PATH"] || MODEL_PATH;
  }

  baseScorer(): LinearScorer | null {
    if (this.#scorer === undefined) {
      try {
        this.#scorer = loadLinearScorer(this.#modelPath);
      } catch {
        this.#scorer = null;
      }
    }
    return this.#scorer;
  }

  /** eld's small database (about 85 MB), loaded once; classify and the console ask for it at start. */
  languageIdentifier(): Promise<LanguageIdentifier> {
    this.#identifier ??= loadLanguageIdentifier();
    return this.#identifier;
  }

  async add(report: ReportJob): Promise<void> {
    await this.#queue.add("report", report, {
      removeOnComplete: KEEP_DONE,
      removeOnFail: KEEP_DONE,
      // A learner that lost Redis mid-job retries; a report applied twice only counts twice.
      attempts: 3,
      backoff: { type: "exponential", delay: 500 },
      // One report per attempt (a resend whose first copy was queued adds nothing): BullMQ's
      // throttle mode ignores a job whose id was added within the ttl, done or not.
      ...(report.attempt
        ? { deduplication: { id: `${report.workspaceId}:${report.attempt}`, ttl: ATTEMPT_MEMORY_MS } }
        : {}),
    });
  }

  close(): Promise<void> {
    return this.#queue.close();
  }
}
