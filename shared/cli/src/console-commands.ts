import { isEmail } from "@sift/console/accounts";
import { passwordProblem } from "@sift/console/password";
import { isRole } from "@sift/console/roles";
import { createUser, LAST_OWNER, setMemberRole } from "@sift/operations";
import { required, UsageError, type Command, type ConsoleCliDeps } from "./commands.ts";
import { actorOf, unwrap } from "./operation-commands.ts";

const consoleDeps = (deps: { console?: ConsoleCliDeps }): ConsoleCliDeps => {
  if (!deps.console) throw new Error("the console commands are not wired in this CLI");
  return deps.console;
};

/** Console users and their roles (docs/console.md): the first operator is made here. */
export const CONSOLE_COMMANDS: Record<string, Command> = {
  "console user": {
    flags: ["email"],
    booleans: ["operator"],
    positional: "action",
    run: async (flags, deps) => {
      if (flags["action"] !== "add")
        throw new UsageError("the only action is add: sift console user add --email …");
      const email = required(flags, "email").trim().toLowerCase();
      if (!isEmail(email)) throw new UsageError(`--email: ${JSON.stringify(email)} is not an e-mail address`);
      const { readPassword } = consoleDeps(deps);
      const password = await readPassword();
      const problem = passwordProblem(password);
      if (problem) throw new UsageError(`the password needs ${problem}`);
      const created = await createUser(deps.operations, actorOf(deps), {
        email,
        password,
        operator: flags["operator"] === "true",
      });
      return unwrap(created, "this CLI has no console accounts", `${email} already has an account`);
    },
  },
  "console member": {
    flags: ["workspace", "email", "role"],
    positional: "action",
    run: async (flags, deps) => {
      if (flags["action"] !== "set")
        throw new UsageError("the only action is set: sift console member set …");
      const workspaceId = required(flags, "workspace");
      const role = required(flags, "role");
      if (role !== "none" && !isRole(role)) throw new UsageError("--role is owner, editor, viewer or none");
      const email = required(flags, "email");
      const set = await setMemberRole(deps.operations, actorOf(deps), workspaceId, {
        email,
        role: role === "none" ? null : role,
      });
      const view = unwrap(set, `no workspace ${workspaceId} or console user ${email}`, LAST_OWNER);
      return { workspaceId, email: view.email, role };
    },
  },
};
