/**
 * The management API's typed client (docs/hosts.md): workspaces, configurations, rotation,
 * usage, audit, tokens, webhooks and batches, with an `st_…` management token. Every write
 * takes an optional idempotency key, so a control panel can resend a call it did not hear back
 * from and get the first answer (a created secret included) instead of a second resource.
 *
 * Types are written out here rather than imported, so the package keeps no dependency.
 */

export type ManagementErrorCode =
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "invalid"
  | "idempotency_mismatch"
  | "rate_limited";

export class ManagementError extends Error {
  override readonly name = "ManagementError";
  constructor(
    readonly status: number,
    readonly code: ManagementErrorCode | undefined,
    message: string,
    /** A 409 on an externalId: the workspace that holds it. */
    readonly existingId?: string,
    /** A 429's Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface Workspace {
  id: string;
  name: string;
  plan: "free" | "paid";
  allowance: number;
  classify: boolean;
  externalId: string | null;
  labels: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface WorkspaceInput {
  name: string;
  plan: "free" | "paid";
  allowance?: number;
  externalId?: string;
  labels?: Record<string, string>;
}

export type WorkspaceChanges = Partial<WorkspaceInput> & {
  classify?: boolean;
  rateLimit?: number;
  burst?: number;
  network?: boolean;
  logPrivacy?: "full" | "redacted" | "none";
  logRetentionDays?: number;
  logMaxEntries?: number;
};

export interface Configuration {
  id: string;
  workspaceId: string;
  kind: "classify" | "challenge";
  name: string | null;
  siteKey?: string;
  hostnames?: string[];
  difficulty?: number;
  challengeTtlSeconds?: number;
  adaptive?: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ConfigurationInput {
  kind: "classify" | "challenge";
  name?: string;
  hostnames?: string[];
  difficulty?: number;
  challengeTtlSeconds?: number;
  adaptive?: boolean;
}

/** A block or allow entry of a site's lists, as added (its value folded as stored). */
export interface ListEntryInput {
  kind: "block" | "allow";
  type: "domain" | "email" | "phrase";
  value: string;
}
export interface ListEntry extends ListEntryInput {
  /** Who added it (a token's id, a console user's e-mail, `CLI`) and when; null from before that was kept. */
  addedBy: string | null;
  addedAt: string | null;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface WorkspaceFilter {
  q?: string;
  externalId?: string;
  plan?: "free" | "paid";
  /** `key:value` */
  label?: string;
  limit?: number;
}

export interface BatchOperation {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}

export interface ManagementClientOptions {
  baseUrl: string;
  /** A management token, `st_…` (`sift token create`, or POST /v1/tokens). */
  token: string;
  /** Per call, in ms (default 30 s: a batch of 1,000 operations takes a few). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class ManagementClient {
  readonly #base: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ManagementClientOptions) {
    this.#base = options.baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#fetch = options.fetch ?? fetch;
  }

  createWorkspace(input: WorkspaceInput, idempotencyKey?: string): Promise<Workspace> {
    return this.#call("POST", "/v1/workspaces", input, idempotencyKey);
  }
  listWorkspaces(filter: WorkspaceFilter & { cursor?: string } = {}): Promise<Page<Workspace>> {
    return this.#call("GET", `/v1/workspaces${query(filter)}`);
  }
  /** Every workspace the filter names, a page at a time (each present throughout exactly once). */
  async *workspaces(filter: WorkspaceFilter = {}): AsyncGenerator<Workspace> {
    let cursor: string | null | undefined;
    do {
      const page = await this.listWorkspaces({ ...filter, ...(cursor ? { cursor } : {}) });
      yield* page.data;
      cursor = page.nextCursor;
    } while (cursor);
  }
  getWorkspace(id: string): Promise<Workspace> {
    return this.#call("GET", `/v1/workspaces/${encodeURIComponent(id)}`);
  }
  updateWorkspace(id: string, changes: WorkspaceChanges, idempotencyKey?: string): Promise<Workspace> {
    return this.#call("PATCH", `/v1/workspaces/${encodeURIComponent(id)}`, changes, idempotencyKey);
  }
  deleteWorkspace(id: string, idempotencyKey?: string): Promise<Workspace> {
    return this.#call("DELETE", `/v1/workspaces/${encodeURIComponent(id)}`, undefined, idempotencyKey);
  }
  createConfiguration(
    workspaceId: string,
    input: ConfigurationInput,
    idempotencyKey?: string,
  ): Promise<Configuration & { secretKey: string }> {
    return this.#call(
      "POST",
      `/v1/workspaces/${encodeURIComponent(workspaceId)}/configurations`,
      input,
      idempotencyKey,
    );
  }
  listConfigurations(workspaceId: string): Promise<Page<Configuration>> {
    return this.#call("GET", `/v1/workspaces/${encodeURIComponent(workspaceId)}/configurations`);
  }
  updateConfiguration(
    id: string,
    changes: Omit<ConfigurationInput, "kind">,
    idempotencyKey?: string,
  ): Promise<Configuration> {
    return this.#call("PATCH", `/v1/configurations/${encodeURIComponent(id)}`, changes, idempotencyKey);
  }
  deleteConfiguration(id: string, idempotencyKey?: string): Promise<Configuration> {
    return this.#call("DELETE", `/v1/configurations/${encodeURIComponent(id)}`, undefined, idempotencyKey);
  }
  /** A new secret; with `graceSeconds` the old one keeps working until `previousValidUntil`. */
  rotateSecret(
    id: string,
    options: { graceSeconds?: number } = {},
    idempotencyKey?: string,
  ): Promise<{ secretKey: string; previousValidUntil: string }> {
    return this.#call(
      "POST",
      `/v1/configurations/${encodeURIComponent(id)}/rotate-secret`,
      options,
      idempotencyKey,
    );
  }
  usage(workspaceId: string): Promise<Record<string, unknown>> {
    return this.#call("GET", `/v1/workspaces/${encodeURIComponent(workspaceId)}/usage`);
  }
  audit(
    options: { workspace?: string; since?: string; cursor?: string; limit?: number } = {},
  ): Promise<Page<Record<string, unknown>>> {
    return this.#call("GET", `/v1/audit${query(options)}`);
  }
  createWebhook(
    input: { url: string; events: string[]; workspaceId?: string },
    idempotencyKey?: string,
  ): Promise<{ id: string; secret: string; url: string; events: string[] }> {
    return this.#call("POST", "/v1/webhooks", input, idempotencyKey);
  }
  /** A page of a site's lists in kind, type, value order; `kind` (and `type` with it) narrow it. */
  listEntries(
    workspaceId: string,
    filter: {
      kind?: ListEntryInput["kind"];
      type?: ListEntryInput["type"];
      cursor?: string;
      limit?: number;
    } = {},
  ): Promise<Page<ListEntry>> {
    return this.#call("GET", `/v1/workspaces/${encodeURIComponent(workspaceId)}/lists${query(filter)}`);
  }
  addListEntry(workspaceId: string, entry: ListEntryInput, idempotencyKey?: string): Promise<ListEntryInput> {
    return this.#call(
      "POST",
      `/v1/workspaces/${encodeURIComponent(workspaceId)}/lists`,
      entry,
      idempotencyKey,
    );
  }
  removeListEntry(
    workspaceId: string,
    entry: ListEntryInput,
    idempotencyKey?: string,
  ): Promise<ListEntryInput> {
    return this.#call(
      "POST",
      `/v1/workspaces/${encodeURIComponent(workspaceId)}/lists/remove`,
      entry,
      idempotencyKey,
    );
  }
  /** Up to 20,000 entries, all or none. */
  importListEntries(
    workspaceId: string,
    entries: ListEntryInput[],
    idempotencyKey?: string,
  ): Promise<{ entries: number; added: number }> {
    return this.#call(
      "POST",
      `/v1/workspaces/${encodeURIComponent(workspaceId)}/lists/import`,
      { entries },
      idempotencyKey,
    );
  }
  /** Every verdict the site's log keeps, gone at once. */
  forgetVerdicts(
    workspaceId: string,
    idempotencyKey?: string,
  ): Promise<{ workspaceId: string; forgotten: true }> {
    return this.#call(
      "DELETE",
      `/v1/workspaces/${encodeURIComponent(workspaceId)}/verdicts`,
      undefined,
      idempotencyKey,
    );
  }
  /** What the site's reports taught, and what was kept of them for the deployment's model. */
  forgetReports(
    workspaceId: string,
    idempotencyKey?: string,
  ): Promise<{ workspaceId: string; forgotten: true; version: number }> {
    return this.#call(
      "DELETE",
      `/v1/workspaces/${encodeURIComponent(workspaceId)}/reports`,
      undefined,
      idempotencyKey,
    );
  }
  /** Up to 1,000 operations, each answered as if sent alone, in order. */
  batch(
    operations: BatchOperation[],
    idempotencyKey?: string,
  ): Promise<{ results: Array<{ status: number; body: unknown }> }> {
    return this.#call("POST", "/v1/batch", { operations }, idempotencyKey);
  }

  async #call<T>(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<T> {
    const res = await this.#fetch(`${this.#base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.#token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.#timeoutMs),
    });
    const answer = (await res.json().catch(() => null)) as
      (Record<string, unknown> & { message?: unknown; code?: unknown; id?: unknown }) | null;
    if (res.ok && answer !== null) return answer as T;
    const retryAfter = Number(res.headers.get("retry-after"));
    throw new ManagementError(
      res.status,
      typeof answer?.code === "string" ? (answer.code as ManagementErrorCode) : undefined,
      typeof answer?.message === "string" ? answer.message : `HTTP ${res.status}`,
      typeof answer?.id === "string" ? answer.id : undefined,
      Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
    );
  }
}

const query = (fields: object): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields) as Array<[string, unknown]>)
    if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : "";
};
