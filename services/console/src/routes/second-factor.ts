import type { Router } from "express";
import { identityOf } from "@sift/runtime";
import { requireSecondFactor, type OperationDeps } from "@sift/operations";
import type { AccountStore } from "../clients/accounts.ts";
import type { SecondFactorStore } from "../clients/second-factor.ts";
import type { SessionStore } from "../clients/sessions.ts";
import type { SignInThrottle } from "../clients/throttle.ts";
import { describeAction, keptFields, returnTarget } from "../domain/resume.ts";
import { codePage, secondFactorPage } from "../views/second-factor.ts";
import { signInPage, type Return } from "../views/sign-in.ts";
import { messagePage, NOT_FOUND_PAGE } from "../views/layout.ts";
import { clearCookie, field, formFields, parseCookies, sendPage, type Visitor } from "./context.ts";
import { finishSignIn, STEP_COOKIE } from "./sign-in.ts";
import { enter, signInFor, workspacesFor, type WorkspaceDeps } from "./workspace.ts";

export interface SecondFactorDeps extends WorkspaceDeps {
  accounts: AccountStore;
  sessions: SessionStore;
  throttle: SignInThrottle;
  secondFactor: SecondFactorStore;
  config: { sessionAbsoluteMs: number; operatorSecondFactor?: "required" | "optional" | undefined };
  /** Asking it of a workspace's members is `workspace.second-factor` (@sift/operations). */
  operations: OperationDeps;
}

/**
 * The second factor (issue 41): the code step of sign-in, turning TOTP on (key, first code,
 * recovery codes shown once) and off from "Your sessions", and an owner asking it of every
 * member of their workspace (Members).
 */
export const secondFactorRoutes = (router: Router, deps: SecondFactorDeps): void => {
  router.post("/console/sign-in/code", async (req, res) => {
    const fields = formFields(req);
    const csrf = field(fields, "_csrf");
    const token = parseCookies(req.headers.cookie)[STEP_COOKIE] ?? "";
    const pending = await deps.secondFactor.pendingSignIn(token);
    const user = pending ? await deps.accounts.getUser(pending.userId) : null;
    if (!pending || !user) {
      return sendPage(res, 401, signInPage({ csrf, error: "That sign-in took too long: sign in again." }));
    }
    // The same throttle as passwords: five wrong codes a minute per account.
    const wait = await deps.throttle.take(identityOf(res).client ?? "unknown", user.email);
    if (wait > 0) {
      res.setHeader("Retry-After", String(Math.ceil(wait / 1000)));
      return sendPage(
        res,
        429,
        codePage({ csrf, error: `Too many attempts. Try again in ${Math.ceil(wait / 1000)} s.` }),
      );
    }
    if (!(await deps.secondFactor.check(user.id, field(fields, "code")))) {
      return sendPage(res, 401, codePage({ csrf, error: "That code is wrong, or was used already." }));
    }
    await deps.secondFactor.endSignIn(token);
    clearCookie(req, res, STEP_COOKIE);
    const action = returnTarget(pending.back.action) ?? undefined;
    const back: Return = {
      next: returnTarget(pending.back.next) ?? undefined,
      ...(action && pending.back.resume !== undefined
        ? {
            action,
            resume: pending.back.resume,
            doing: describeAction(action, keptFields(pending.back.resume)),
          }
        : {}),
    };
    await finishSignIn({ ...deps, absoluteMs: deps.config.sessionAbsoluteMs }, req, res, user.id, back);
  });

  const frameOf = async (visitor: Visitor) => {
    const workspaces = await workspacesFor(deps, visitor.user);
    return {
      email: visitor.user.email,
      csrf: visitor.session.csrf,
      workspaces: workspaces.map((w) => ({ id: w.id, name: w.name })),
      search: visitor.user.operator,
    };
  };

  router.get("/console/account/second-factor", async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, signInFor(req));
    const enabled = await deps.secondFactor.enabled(visitor.user.id);
    sendPage(
      res,
      200,
      secondFactorPage(await frameOf(visitor), {
        enabled,
        recoveryLeft: enabled ? await deps.secondFactor.recoveryLeft(visitor.user.id) : 0,
        enrollment: enabled
          ? undefined
          : await deps.secondFactor.beginEnrollment(visitor.user.id, visitor.user.email),
      }),
    );
  });

  router.post("/console/account/second-factor", async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, signInFor(req));
    const codes = await deps.secondFactor.confirmEnrollment(visitor.user.id, field(formFields(req), "code"));
    if (!codes) {
      return sendPage(
        res,
        400,
        secondFactorPage(await frameOf(visitor), {
          enabled: false,
          recoveryLeft: 0,
          enrollment: await deps.secondFactor.beginEnrollment(visitor.user.id, visitor.user.email),
          error: "That code does not match the key: check the phone's clock and type the code it shows now.",
        }),
      );
    }
    sendPage(
      res,
      200,
      secondFactorPage(await frameOf(visitor), { enabled: true, recoveryLeft: codes.length, codes }),
    );
  });

  router.post("/console/account/second-factor/off", async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, signInFor(req));
    if (!(await deps.secondFactor.check(visitor.user.id, field(formFields(req), "code")))) {
      return sendPage(
        res,
        400,
        secondFactorPage(await frameOf(visitor), {
          enabled: true,
          recoveryLeft: await deps.secondFactor.recoveryLeft(visitor.user.id),
          error: "That code is wrong, or was used already: the second factor stays on.",
        }),
      );
    }
    await deps.secondFactor.disable(visitor.user.id);
    res.redirect(303, "/console/account/second-factor");
  });

  router.post("/console/w/:workspace/members/second-factor", async (req, res) => {
    const place = await enter(deps, req, res, "members", "manage");
    if (!place) return;
    const required = field(formFields(req), "required") === "yes";
    const changed = await requireSecondFactor(deps.operations, place.actor, place.workspace.id, required);
    if (!changed.ok) {
      if (changed.code === "conflict")
        return sendPage(res, 409, messagePage("Turn yours on first", changed.message));
      return sendPage(res, 404, NOT_FOUND_PAGE);
    }
    res.redirect(303, `/console/w/${place.workspace.id}/members`);
  });
};
