/** One HTTP attempt, reduced to the three things the retry and policy code tell apart. */
export type Attempt =
  | { kind: "answer"; status: number; headers: Headers; text: string; json: unknown }
  | { kind: "network"; error: unknown }
  | { kind: "timeout" };

export interface AttemptInput {
  url: string;
  secretKey: string;
  body: unknown;
  timeoutMs: number;
  /** The caller's own signal: its abort is thrown as is, never read as an outage. */
  signal: AbortSignal | undefined;
}

/**
 * POSTs JSON with the key as a bearer token (spec 5.1) and reads the whole body under the same
 * time-out, so a service that sends headers and then stalls still times out.
 */
export const attempt = async (input: AttemptInput): Promise<Attempt> => {
  const timeout = AbortSignal.timeout(input.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
  try {
    const response = await fetch(input.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${input.secretKey}`,
      },
      body: JSON.stringify(input.body),
      signal,
    });
    const text = await response.text();
    return {
      kind: "answer",
      status: response.status,
      headers: response.headers,
      text,
      json: parseJson(text),
    };
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    if (timeout.aborted) return { kind: "timeout" };
    return { kind: "network", error };
  }
};

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
