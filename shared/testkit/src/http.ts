/** A response read whole: status, headers and the body as text and (when it parses) JSON. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export const post = async (
  url: string,
  body: string | Buffer | Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Reply> => {
  const isObject = typeof body === "object" && !Buffer.isBuffer(body);
  const res = await fetch(url, {
    method: "POST",
    headers: isObject ? { "content-type": "application/json", ...headers } : headers,
    body: isObject ? JSON.stringify(body) : Buffer.isBuffer(body) ? new Uint8Array(body) : body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
};

export const form = (fields: Array<[string, string]>): string => new URLSearchParams(fields).toString();
