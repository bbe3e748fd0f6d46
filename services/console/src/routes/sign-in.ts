import type { Request, Response, Router } from "express";
import type { SecondFactorStore } from "../clients/second-factor.ts";
import { codePage } from "../views/second-factor.ts";
import { identityOf, queryFields } from "@sift/runtime";
import type { AccountStore } from "../clients/accounts.ts";
import type { SessionStore } from "../clients/sessions.ts";
import type { SignInThrottle } from "../clients/throttle.ts";
import { checkPassword, hashPassword, needsRehash } from "../domain/password.ts";
import { continuePage, signInPage, type Return } from "../views/sign-in.ts";
import { describeAction, keptFields, returnTarget } from "../domain/resume.ts";
import {
  clearCookie,
  field,
  formFields,
  newToken,
  parseCookies,
  PRESESSION_COOKIE,
  SESSION_COOKIE,
  sendPage,
  sessionOrigin,
  setCookie,
} from "./context.ts";

export interface SignInDeps {
  accounts: AccountStore;
  sessions: SessionStore;
  throttle: SignInThrottle;
  /** A hash checked against when the e-mail is unknown, so that costs what a wrong password does. */
  decoyHash: string;
  absoluteMs: number;
  secondFactor: SecondFactorStore;
}

/** The browser's token of a sign-in whose password was right and whose code is still to come. */
export const STEP_COOKIE = "sift_signin_step";

/**
 * The end of a sign-in (after the password, or after the code when a second factor is on): the
 * browser's previous session ends and a new one starts; then the page asked for, or the page that
 * offers to finish a form kept from an ended session (issue 41), or the start page.
 */
export const finishSignIn = async (
  deps: Pick<SignInDeps, "sessions" | "absoluteMs">,
  req: Request,
  res: Response,
  userId: string,
  back: Return,
): Promise<void> => {
  const previous = res.locals.visitor;
  if (previous) await deps.sessions.end(previous.session.id, previous.user.id);
  const { token, session } = await deps.sessions.start(userId, sessionOrigin(req, res));
  setCookie(req, res, SESSION_COOKIE, token, deps.absoluteMs);
  clearCookie(req, res, PRESESSION_COOKIE);
  const next = back.next ?? "/console/";
  if (back.action && back.resume !== undefined) {
    const fields = keptFields(back.resume);
    return sendPage(
      res,
      200,
      continuePage({
        csrf: session.csrf,
        action: back.action,
        fields,
        doing: describeAction(back.action, fields),
        next,
      }),
    );
  }
  res.redirect(303, next);
};

/** The one answer for an unknown e-mail and a wrong password alike. */
export const WRONG_CREDENTIALS = "The e-mail or the password is wrong.";

/**
 * Sign-in, sign-out and sign-out everywhere. The sign-in form carries a token that matches a
 * cookie set with the form (no session yet to hold one); a successful sign-in ends any session
 * the browser had and starts a new one (a new token: rotated).
 */
export const signInRoutes = (router: Router, deps: SignInDeps): void => {
  router.get("/console/sign-in", (req, res) => {
    const next = returnTarget(queryFields(req)["next"]) ?? undefined;
    if (res.locals.visitor) return res.redirect(303, next ?? "/console/");
    const token = parseCookies(req.headers.cookie)[PRESESSION_COOKIE] ?? newToken();
    setCookie(req, res, PRESESSION_COOKIE, token);
    sendPage(res, 200, signInPage({ csrf: token, back: { next } }));
  });

  router.post("/console/sign-in", async (req, res) => {
    const fields = formFields(req);
    const email = field(fields, "email").trim().toLowerCase();
    const password = field(fields, "password");
    const csrf = field(fields, "_csrf");
    // Where to go after: the page asked for, and a form kept from an ended session (issue 41).
    const next = returnTarget(field(fields, "next")) ?? undefined;
    const action = returnTarget(field(fields, "action")) ?? undefined;
    const resume = action ? field(fields, "resume") : undefined;
    const back: Return = {
      next,
      ...(action && resume !== undefined
        ? { action, resume, doing: describeAction(action, keptFields(resume)) }
        : {}),
    };
    const wait = await deps.throttle.take(identityOf(res).client ?? "unknown", email);
    if (wait > 0) {
      res.setHeader("Retry-After", String(Math.ceil(wait / 1000)));
      const message = `Too many attempts. Try again in ${Math.ceil(wait / 1000)} s.`;
      return sendPage(res, 429, signInPage({ csrf, email, error: message, back }));
    }
    const found = await deps.accounts.credentials(email);
    const ok = await checkPassword(found?.passwordHash ?? deps.decoyHash, password);
    if (!found || !ok) return sendPage(res, 401, signInPage({ csrf, email, error: WRONG_CREDENTIALS, back }));
    if (needsRehash(found.passwordHash)) {
      await deps.accounts.setPasswordHash(found.user.id, await hashPassword(password));
    }
    // With a second factor on, the password is half of it: the code comes on the next page.
    if (await deps.secondFactor.enabled(found.user.id)) {
      const step = await deps.secondFactor.startSignIn({
        userId: found.user.id,
        back: {
          ...(next ? { next } : {}),
          ...(back.action ? { action: back.action, resume: back.resume ?? "" } : {}),
        },
      });
      setCookie(req, res, STEP_COOKIE, step, 5 * 60 * 1000);
      return sendPage(res, 200, codePage({ csrf }));
    }
    await finishSignIn(deps, req, res, found.user.id, back);
  });

  router.post("/console/sign-out", async (req, res) => {
    const visitor = res.locals.visitor;
    if (visitor) await deps.sessions.end(visitor.session.id, visitor.user.id);
    clearCookie(req, res, SESSION_COOKIE);
    res.redirect(303, "/console/sign-in");
  });

  router.post("/console/sign-out-everywhere", async (req, res) => {
    const visitor = res.locals.visitor;
    if (visitor) await deps.sessions.endAll(visitor.user.id);
    clearCookie(req, res, SESSION_COOKIE);
    res.redirect(303, "/console/sign-in");
  });
};
