import type { RedisClient } from "@sift/runtime";
import type { RedisLayout } from "./layout.ts";
import type { Workspace } from "./types.ts";

/**
 * The workspace directory: sorted sets that list workspaces a page at a time, so no page, job
 * or command reads every workspace at once (DESIGN, "many sites").
 *
 * Every member sits at score 0 and is read by lex range from the last member a page returned
 * (exclusive): a cursor is a position in an order, not an offset, so a workspace created or
 * deleted between two pages moves no other one, and each workspace present throughout is on
 * exactly one page. Creation order (`<created, 15 digits>:<id>`) puts new workspaces at the
 * end, where a walk still in progress meets them.
 */
export interface DirectoryFilter {
  /** A name's start (case-blind), or a whole id. */
  q?: string;
  plan?: string;
  /** `[key, value]` */
  label?: readonly [string, string];
}

export interface DirectoryPage {
  ids: string[];
  /** Where the next page starts (opaque), or null after the last one. */
  next: string | null;
}

/** The creation-order member of a workspace: sortable, and unique by its id. */
export const orderMember = (w: Pick<Workspace, "id" | "createdAt">): string =>
  `${String(w.createdAt).padStart(15, "0")}:${w.id}`;

/** The name index's member: case-blind, cut to what a search can ask for. */
export const nameMember = (w: Pick<Workspace, "id" | "name">): string =>
  `${w.name.toLowerCase().slice(0, NAME_KEY_LENGTH)}\u0000${w.id}`;

/** The longest name start a search matches on (console names are up to 100 characters). */
const NAME_KEY_LENGTH = 100;

/** A member's workspace id: after the name's NUL, or after the creation time's colon (ids hold neither). */
const idOf = (member: string): string =>
  member.slice(Math.max(member.lastIndexOf("\u0000"), member.lastIndexOf(":")) + 1);

/** The sets one workspace is a member of, with its member in each. */
export const directoryEntries = (
  layout: RedisLayout,
  w: Pick<Workspace, "id" | "createdAt" | "name" | "plan" | "labels">,
): Array<[string, string]> => [
  [layout.workspaceIndex, orderMember(w)],
  [layout.workspacePlan(w.plan), orderMember(w)],
  [layout.workspaceNames, nameMember(w)],
  ...Object.entries(w.labels ?? {}).map(
    ([k, v]) => [layout.workspaceLabel(k, v), orderMember(w)] as [string, string],
  ),
];

/** Adds a workspace to its sets and removes it from those it left (one command per set: a cluster's slots). */
export const reindex = async (
  redis: RedisClient,
  layout: RedisLayout,
  before: Parameters<typeof directoryEntries>[1] | null,
  after: Parameters<typeof directoryEntries>[1] | null,
): Promise<void> => {
  const old = before ? directoryEntries(layout, before) : [];
  const now = after ? directoryEntries(layout, after) : [];
  const kept = new Set(now.map(([k, m]) => `${k}\n${m}`));
  const had = new Set(old.map(([k, m]) => `${k}\n${m}`));
  await Promise.all([
    ...now.filter(([k, m]) => !had.has(`${k}\n${m}`)).map(([k, m]) => redis.zadd(k, 0, m)),
    ...old.filter(([k, m]) => !kept.has(`${k}\n${m}`)).map(([k, m]) => redis.zrem(k, m)),
  ]);
};

/**
 * One page of workspace ids. The set read is the most selective the filter names (a label, a
 * plan, the name index for `q`, else creation order); the caller applies the rest of the filter
 * to the workspaces it reads, so a filtered page can be shorter than `limit` and still have a
 * next one.
 */
export const directoryPage = async (
  redis: RedisClient,
  layout: RedisLayout,
  filter: DirectoryFilter,
  limit: number,
  cursor: string | null,
): Promise<DirectoryPage> => {
  const { key, min, max } = rangeFor(layout, filter);
  const start = cursor === null ? min : Buffer.concat([Buffer.from("("), Buffer.from(cursor, "base64url")]);
  const members = await redis.zrangebylexBuffer(key, start, max, "LIMIT", 0, limit + 1);
  const page = members.slice(0, limit).map((m) => m.toString("utf8"));
  const last = members[limit - 1];
  return {
    ids: page.map(idOf),
    next: members.length > limit && last ? last.toString("base64url") : null,
  };
};

const rangeFor = (
  layout: RedisLayout,
  filter: DirectoryFilter,
): { key: string; min: Buffer | string; max: Buffer | string } => {
  if (filter.label) return { key: layout.workspaceLabel(...filter.label), min: "-", max: "+" };
  if (filter.plan) return { key: layout.workspacePlan(filter.plan), min: "-", max: "+" };
  if (filter.q) {
    const start = Buffer.from(filter.q.toLowerCase().slice(0, NAME_KEY_LENGTH));
    return {
      key: layout.workspaceNames,
      min: Buffer.concat([Buffer.from("["), start]),
      // 0xff never occurs in UTF-8, so it sorts after every name with this start.
      max: Buffer.concat([Buffer.from("["), start, Buffer.from([0xff])]),
    };
  }
  return { key: layout.workspaceIndex, min: "-", max: "+" };
};
