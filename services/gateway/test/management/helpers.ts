import { randomBytes } from "node:crypto";
import type { Stack } from "@sift/testkit";

export interface V1Reply {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** One call of the management API over real HTTP; a body that is a string is sent as is. */
export const v1 = async (
  stack: Pick<Stack, "gatewayUrl">,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<V1Reply> => {
  const res = await fetch(`${stack.gatewayUrl}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
  });
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, body, headers: res.headers };
};

/** A label unique to one test run: the shared test Redis holds every file's workspaces. */
export const runLabel = (): string => `t${randomBytes(6).toString("hex")}`;

/** An operator token, as `sift token create --scope operator` mints it. */
export const operatorToken = async (stack: Stack, options: { readOnly?: boolean } = {}): Promise<string> =>
  (await stack.tokens.create({ name: "test operator", scope: "operator", ...options })).token;

/** The answer verify gives a key: `Invalid solution length` once the key is accepted (the solution "x"). */
export const verifyAnswer = async (stack: Pick<Stack, "gatewayUrl">, secretKey: string): Promise<string> => {
  const res = await fetch(`${stack.gatewayUrl}/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ secretKey, solution: "x" }),
  });
  return ((await res.json()) as { message: string }).message;
};
