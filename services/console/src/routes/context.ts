import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { identityOf, parseForm, rawBody, type FormFields } from "@sift/runtime";
import type { AccountStore, User } from "../clients/accounts.ts";
import type { Session, SessionOrigin, SessionStore } from "../clients/sessions.ts";
import type { Html } from "../domain/html.ts";
import { describeAction, keepForm, keptFields, returnTarget } from "../domain/resume.ts";
import { messagePage } from "../views/layout.ts";
import { signInPage, type Return } from "../views/sign-in.ts";

/** The session cookie (its token) and the sign-in form's own CSRF cookie. */
export const SESSION_COOKIE = "sift_session";
export const PRESESSION_COOKIE = "sift_presession";
export const COOKIE_PATH = "/console";

/** Every console page's policy: its own origin only, no inline script or style, no framing. */
export const CONSOLE_CSP =
  "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

export interface Visitor {
  user: User;
  session: Session;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** The signed-in user and their session, when the request carries a live one. */
      visitor?: Visitor;
    }
  }
}

export const parseCookies = (header: string | undefined): Record<string, string> => {
  const cookies: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (name && !(name in cookies)) cookies[name] = part.slice(at + 1).trim();
  }
  return cookies;
};

/** Whether the browser reached the gateway over TLS (the proxy hop says so in X-Forwarded-Proto). */
const overTls = (req: Request): boolean =>
  String(req.headers["x-forwarded-proto"] ?? "")
    .split(",")
    .some((p) => p.trim() === "https");

export const setCookie = (
  req: Request,
  res: Response,
  name: string,
  value: string,
  maxAgeMs?: number,
): void => {
  const parts = [`${name}=${value}`, `Path=${COOKIE_PATH}`, "HttpOnly", "SameSite=Lax"];
  if (maxAgeMs !== undefined) parts.push(`Max-Age=${Math.floor(maxAgeMs / 1000)}`);
  if (overTls(req)) parts.push("Secure");
  res.append("Set-Cookie", parts.join("; "));
};

export const clearCookie = (req: Request, res: Response, name: string): void =>
  setCookie(req, res, name, "", 0);

/** A page: HTML with the console's policy and no caching. */
export const sendPage = (res: Response, status: number, page: Html): void => {
  res.status(status).type("html").send(page.toString());
};

/** The form fields of a POST (form-encoded; anything else reads as no fields). */
export const formFields = (req: Request): FormFields =>
  String(req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")
    ? parseForm(rawBody(req))
    : (Object.create(null) as FormFields);

const posted = new WeakMap<Request, Promise<FormFields>>();

/**
 * The fields of a POST form, form-encoded or multipart (a file input's field reads as the
 * file's text, UTF-8); anything else reads as no fields. Parsed once per request, and multipart
 * by the platform's own parser (the fetch API's FormData), so no hand-written MIME parsing.
 */
export const postedForm = (req: Request): Promise<FormFields> => {
  let fields = posted.get(req);
  if (!fields) {
    fields = readPosted(req);
    posted.set(req, fields);
  }
  return fields;
};

const readPosted = async (req: Request): Promise<FormFields> => {
  const type = String(req.headers["content-type"] ?? "");
  if (!type.toLowerCase().startsWith("multipart/form-data")) return formFields(req);
  const fields = Object.create(null) as FormFields;
  try {
    const data = await new Response(new Uint8Array(rawBody(req)), {
      headers: { "content-type": type },
    }).formData();
    for (const [name, value] of data) {
      const text = typeof value === "string" ? value : await value.text();
      const seen = fields[name];
      fields[name] = seen === undefined ? text : Array.isArray(seen) ? [...seen, text] : [seen, text];
    }
  } catch {
    // A malformed multipart body reads as no fields: its CSRF check then refuses it.
  }
  return fields;
};

/** One field as a single string ("" when absent or sent twice). */
export const field = (fields: FormFields, name: string): string => {
  const value = fields[name];
  return typeof value === "string" ? value : "";
};

const sameString = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The browser and address a session is started from, for the list of one's sessions. */
export const sessionOrigin = (req: Request, res: Response): SessionOrigin => {
  const client = identityOf(res).client;
  const userAgent = req.headers["user-agent"];
  return { ...(userAgent ? { userAgent } : {}), ...(client ? { address: client } : {}) };
};

export const newToken = (): string => randomBytes(24).toString("base64url");

/**
 * Every console request: the headers of a page, the visitor from the session cookie, and for a
 * POST the cross-site checks: refused (403) when `Sec-Fetch-Site` says cross-site or `Origin`
 * names another host, and unless its `_csrf` field matches the session's token (or, for the
 * sign-in form, the pre-session cookie's).
 */
export const consoleContext =
  (deps: { sessions: SessionStore; accounts: AccountStore }): RequestHandler =>
  async (req, res, next) => {
    res.setHeader("Content-Security-Policy", CONSOLE_CSP);
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Referrer-Policy", "same-origin");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("X-Content-Type-Options", "nosniff");
    const cookies = parseCookies(req.headers.cookie);
    const token = cookies[SESSION_COOKIE];
    if (token) {
      const session = await deps.sessions.resume(token);
      const user = session ? await deps.accounts.getUser(session.userId) : null;
      if (session && user) res.locals.visitor = { user, session };
    }
    if (req.method !== "POST") return next();
    if (crossSite(req)) return refuse(res);
    // A form whose session has ended (expired, or signed out elsewhere): sign in, then finish it.
    if (!res.locals.visitor && !PRE_SESSION_FORMS.test(req.path)) return signInToFinish(req, res);
    const sent = field(await postedForm(req), "_csrf");
    const expected = res.locals.visitor?.session.csrf ?? cookies[PRESESSION_COOKIE] ?? "";
    if (!expected || !sameString(sent, expected)) return refuse(res);
    next();
  };

/** The forms sent before there is a session: sign-in and accepting an invitation. */
const PRE_SESSION_FORMS = /^\/console\/(?:sign-in|invite\/)/;

/**
 * The answer to a same-site form sent without a live session (issue 41): not "Refused", which
 * reads as an attack, but the sign-in page, which keeps the form (its fields but the CSRF token)
 * and the page it was sent from. After sign-in the person is asked whether to send it again;
 * nothing is done on their behalf. A form too large to keep (a CSV import) keeps only the page.
 */
const signInToFinish = async (req: Request, res: Response): Promise<void> => {
  const cookies = parseCookies(req.headers.cookie);
  // Signing out of a session that has ended already: done.
  if (/^\/console\/sign-out/.test(req.path)) {
    clearCookie(req, res, SESSION_COOKIE);
    return res.redirect(303, "/console/sign-in");
  }
  const token = cookies[PRESESSION_COOKIE] ?? newToken();
  setCookie(req, res, PRESESSION_COOKIE, token);
  if (cookies[SESSION_COOKIE]) clearCookie(req, res, SESSION_COOKIE);
  let from: string | null = null;
  try {
    const referer = new URL(String(req.headers.referer ?? ""));
    if (referer.host === req.headers.host) from = returnTarget(referer.pathname + referer.search);
  } catch {
    // No usable Referer: back to the start page after sign-in.
  }
  const action = returnTarget(req.path);
  const multipart = String(req.headers["content-type"] ?? "").startsWith("multipart/");
  const resume = action && !multipart ? keepForm(await postedForm(req)) : null;
  const back: Return = {
    next: from ?? undefined,
    ...(action && resume !== null
      ? { action, resume, doing: describeAction(action, keptFields(resume)) }
      : {}),
  };
  sendPage(res, 401, signInPage({ csrf: token, back }));
};

const crossSite = (req: Request): boolean => {
  const fetchSite = req.headers["sec-fetch-site"];
  if (fetchSite === "cross-site" || fetchSite === "same-site") return true;
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    return true;
  }
};

const refuse = (res: Response): void =>
  sendPage(
    res,
    403,
    messagePage(
      "Refused",
      "This form came from another site or has expired. Go back, reload the page and try again.",
    ),
  );
