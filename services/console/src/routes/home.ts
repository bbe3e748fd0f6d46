import type { Request, Router } from "express";
import type { Workspace } from "@sift/keystore";
import { queryFields } from "@sift/runtime";
import { WORKSPACES_TABLE, type WorkspacesSort } from "../domain/table-specs.ts";
import { parseTableQuery, tablePage } from "../domain/table.ts";
import { homePage } from "../views/home.ts";
import type { WorkspaceSearchPage } from "../views/operator-home.ts";
import type { User } from "../clients/accounts.ts";
import { messagePage, NOT_FOUND_PAGE } from "../views/layout.ts";
import { field, formFields, sendPage } from "./context.ts";
import { workspacesFor, type WorkspaceDeps } from "./workspace.ts";
import { createWorkspace, type OperationDeps } from "@sift/operations";

/** The workspaces table of the start page: by name, plan or age; searched by name or id. */
const workspacesTable = (req: Request, workspaces: Workspace[]) => {
  const query = parseTableQuery<WorkspacesSort>(queryFields(req), WORKSPACES_TABLE);
  const paged = tablePage(workspaces, query, {
    keys: {
      name: (w) => `${w.name.toLowerCase()}\u0000${w.id}`,
      plan: (w) => `${w.plan}\u0000${w.name.toLowerCase()}`,
      created: (w) => w.createdAt,
    },
    texts: (w) => [w.name, w.id, w.plan],
  });
  return { query, paged };
};

/** An operator's page of 50: a search reads the name index, else creation order, from `after`. */
const OPERATOR_PAGE = 50;

/**
 * An operator's workspaces: one page from the directory (an exact `ws_…` id, or a name's start),
 * never the whole deployment. A cursor that is not one of ours starts from the top.
 */
const operatorPage = async (deps: WorkspaceDeps, req: Request): Promise<WorkspaceSearchPage> => {
  const fields = queryFields(req);
  const q = typeof fields["q"] === "string" ? fields["q"].trim().slice(0, 100) : "";
  const after =
    typeof fields["after"] === "string" && /^[\w-]{1,400}$/.test(fields["after"]) ? fields["after"] : null;
  if (/^ws_[\w-]{1,60}$/.test(q)) {
    const one = await deps.keystore.getWorkspace(q);
    return { rows: one ? [one] : [], q, next: null, later: false };
  }
  const { ids, next } = await deps.keystore.pageWorkspaceIds(q ? { q } : {}, OPERATOR_PAGE, after);
  const found = await Promise.all(ids.map((id) => deps.keystore.getWorkspace(id)));
  return { rows: found.filter((w): w is Workspace => w !== null), q, next, later: after !== null };
};

const listFor = async (deps: WorkspaceDeps, req: Request, user: User) => {
  if (user.operator) return { kind: "operator" as const, page: await operatorPage(deps, req) };
  const workspaces = await workspacesFor(deps, user);
  return { kind: "member" as const, workspaces, table: workspacesTable(req, workspaces) };
};

/** The console's start page (the workspaces one can open; an operator searches them and creates them here) and the switcher. */
export const homeRoutes = (router: Router, deps: WorkspaceDeps & { operations: OperationDeps }): void => {
  router.get(["/console", "/console/"], async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor) return res.redirect(303, "/console/sign-in");
    sendPage(res, 200, homePage(visitor, await listFor(deps, req, visitor.user)));
  });

  router.get("/console/switch", (req, res) => {
    const id = queryFields(req)["workspace"];
    if (typeof id !== "string" || !/^[\w-]{1,64}$/.test(id)) return sendPage(res, 404, NOT_FOUND_PAGE);
    res.redirect(303, `/console/w/${id}/sites`);
  });

  router.post("/console/workspaces", async (req, res) => {
    const visitor = res.locals.visitor;
    if (!visitor?.user.operator) {
      return sendPage(res, 403, messagePage("Not allowed", "Only an operator creates sites."));
    }
    const name = field(formFields(req), "name").trim();
    if (name.length === 0 || name.length > 100) {
      return sendPage(
        res,
        400,
        homePage(
          visitor,
          await listFor(deps, req, visitor.user),
          "A site needs a name of 1 to 100 characters.",
        ),
      );
    }
    // workspace.create, as POST /v1/workspaces and `sift workspace create` run it.
    const created = await createWorkspace(
      deps.operations,
      { audit: { type: "user", id: visitor.user.email }, operator: true },
      { name, plan: "free" },
    );
    if (!created.ok) throw new Error(`workspace.create refused a checked form: ${created.message}`);
    res.redirect(303, `/console/w/${created.value.id}/sites`);
  });
};
