import { readFile } from "node:fs/promises";
import { readListCsv } from "@sift/console/list-csv";
import { LIST_TYPES, type ListKind, type ListType } from "@sift/feedback";
import { changeList, forgetFeedback, importList } from "@sift/operations";
import { NotFound, required, UsageError, type Command, type Flags } from "./commands.ts";
import { actorOf, unwrap } from "./operation-commands.ts";

/** `--block` or `--allow`, exactly one. */
const listKind = (flags: Flags): ListKind => {
  if (flags["block"] && flags["allow"]) throw new UsageError("give --block or --allow, not both");
  if (flags["block"]) return "block";
  if (flags["allow"]) return "allow";
  throw new UsageError("--block or --allow is required");
};

const listType = (flags: Flags): ListType => {
  const type = required(flags, "type");
  if (!(LIST_TYPES as readonly string[]).includes(type))
    throw new UsageError(`--type: ${JSON.stringify(type)} is not valid (${LIST_TYPES.join(", ")})`);
  return type as ListType;
};

const listChange = (change: "add" | "remove"): Command => ({
  flags: ["workspace", "type"],
  booleans: ["block", "allow"],
  positional: "value",
  run: async (flags, deps) => {
    const workspaceId = required(flags, "workspace");
    const kind = listKind(flags);
    const type = listType(flags);
    const value = required(flags, "value");
    const changed = await changeList(deps.operations, actorOf(deps), workspaceId, change, {
      kind,
      type,
      value,
    });
    if (!changed.ok && changed.code === "invalid")
      throw new UsageError(`${JSON.stringify(value)} is not a valid ${type}`);
    const entry = unwrap(changed, `no workspace ${workspaceId}`);
    return { workspaceId, [change === "add" ? "added" : "removed"]: entry };
  },
});

/** Per-workspace lists and the learned state of POST /feedback (docs/feedback.md). */
export const FEEDBACK_COMMANDS: Record<string, Command> = {
  "list add": listChange("add"),
  "list remove": listChange("remove"),
  /**
   * `--file lists.csv`: the console's import (kind, type, value; its export reads back), all or
   * nothing: a file with a bad line adds nothing and every bad line is named.
   */
  "list import": {
    flags: ["workspace", "file"],
    run: async (flags, deps) => {
      const workspaceId = required(flags, "workspace");
      const path = required(flags, "file");
      const text = await readFile(path, "utf8").catch((err: NodeJS.ErrnoException) => {
        throw new UsageError(`--file: cannot read ${path} (${err.code ?? err.message})`);
      });
      const read = readListCsv(text);
      if (!read.ok)
        throw new UsageError(
          `nothing imported: ${read.problems.map((p) => `line ${p.line}: ${p.problem}`).join("; ")}`,
        );
      const imported = unwrap(
        await importList(deps.operations, actorOf(deps), workspaceId, read.entries),
        `no workspace ${workspaceId}`,
      );
      return { workspaceId, ...imported };
    },
  },
  "list show": {
    flags: ["workspace", "type"],
    booleans: ["block", "allow"],
    run: async (flags, { keystore, reports: store }) => {
      const workspaceId = required(flags, "workspace");
      if (!(await keystore.getWorkspace(workspaceId))) throw new NotFound(`no workspace ${workspaceId}`);
      const kind = flags["block"] || flags["allow"] ? listKind(flags) : undefined;
      const type = flags["type"] === undefined ? undefined : listType(flags);
      const entries = (await store.lists(workspaceId)).filter(
        (e) => (kind === undefined || e.kind === kind) && (type === undefined || e.type === type),
      );
      return { workspaceId, entries };
    },
  },
  "feedback stats": {
    flags: ["workspace"],
    run: async (flags, { keystore, reports: store }) => {
      const workspaceId = required(flags, "workspace");
      if (!(await keystore.getWorkspace(workspaceId))) throw new NotFound(`no workspace ${workspaceId}`);
      const [stats, sharing, strictness] = await Promise.all([
        store.stats(workspaceId),
        store.shares(workspaceId),
        store.strictness(workspaceId),
      ]);
      return {
        workspaceId,
        reports: { spam: stats.spam, clean: stats.clean },
        lastRetrainAt: stats.updatedAt === null ? null : new Date(stats.updatedAt).toISOString(),
        version: stats.version,
        shareReports: sharing,
        strictness,
      };
    },
  },
  "feedback forget": {
    flags: ["workspace"],
    run: async (flags, deps) => {
      const workspaceId = required(flags, "workspace");
      // Its reviews kept for the deployment's model go too (issue 53).
      return unwrap(
        await forgetFeedback(deps.operations, actorOf(deps), workspaceId),
        `no workspace ${workspaceId}`,
      );
    },
  },
};
