import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { SPAM_STANDARD, VerifyMessage } from "@sift/contracts";
import { contactPage, contactPageCsp, RESULT_PAGE_CSP, resultPage } from "./page.ts";

export interface DemoOptions {
  gatewayUrl: string;
  siteKey: string;
  challengeSecret: string;
  classifySecret: string;
  port?: number;
  /**
   * Extra response headers for the page; a `content-security-policy` here replaces the page's
   * own (the CSP tests try others).
   */
  pageHeaders?: Record<string, string>;
}

export interface DemoResult {
  verify: { ok: boolean; message?: string } | { unreachable: true };
  classify?: unknown;
  accepted: boolean;
}

export interface DemoBackend {
  url: string;
  /** Every form post the backend received, in order: tests count them. */
  submissions: Array<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * The site's own server: it gets the form, verifies `_vendor` with the Challenge secret key, and
 * classifies the rest with the Classify secret key. Both calls go server to server.
 */
export const startDemoBackend = async (options: DemoOptions): Promise<DemoBackend> => {
  const submissions: Array<Record<string, string>> = [];
  const server = createServer(async (req, res) => {
    if (req.method === "GET" && (req.url === "/" || req.url === "/index.html")) {
      res.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": contactPageCsp(options.gatewayUrl),
        "x-content-type-options": "nosniff",
        ...options.pageHeaders,
      });
      return void res.end(contactPage(options));
    }
    if (req.method === "POST" && req.url === "/contact") {
      const fields = Object.fromEntries(new URLSearchParams(await readBody(req)));
      submissions.push(fields);
      const result = await handleSubmission(options, fields);
      res.writeHead(result.accepted ? 200 : 403, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": RESULT_PAGE_CSP,
        "x-content-type-options": "nosniff",
      });
      return void res.end(resultPage(result.accepted, result));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    submissions,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const handleSubmission = async (
  options: DemoOptions,
  fields: Record<string, string>,
): Promise<DemoResult> => {
  const { _vendor: solution = "", ...content } = fields;
  let verify: DemoResult["verify"];
  try {
    verify = await postJson(`${options.gatewayUrl}/verify`, options.challengeSecret, { solution });
  } catch {
    verify = { unreachable: true };
  }
  // The spec's advice for outages: accept only when the service cannot be reached or answers
  // Internal server error; never because `_vendor` is missing.
  const passed = "unreachable" in verify || verify.ok || verify.message === VerifyMessage.internal;
  if (!passed) return { verify, accepted: false };
  let classify: unknown;
  try {
    classify = await postJson(`${options.gatewayUrl}/classify`, options.classifySecret, {
      content,
      model: SPAM_STANDARD,
    });
  } catch {
    classify = { unreachable: true };
  }
  const spam = (classify as { label?: string }).label === "spam";
  return { verify, classify, accepted: !spam };
};

const postJson = async (
  url: string,
  secretKey: string,
  body: unknown,
): Promise<{ ok: boolean; message?: string }> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${secretKey}` },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5_000),
  });
  return (await response.json()) as { ok: boolean; message?: string };
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};
