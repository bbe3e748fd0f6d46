import { expect } from "vitest";
import { encodeSignature, ReportStore, fingerprint, reportBuckets } from "@sift/feedback";
import { Keystore } from "@sift/keystore";
import { systemClock, type RedisClient } from "@sift/runtime";
import { createKey } from "../../src/index.ts";
import { sleep } from "../faults/harness.ts";

/**
 * Issue 29: "learned state (feedback) and keys survive every row". Before a row's fault, twelve
 * workspaces (on a Redis Cluster their `{fb:…}` tags hash to slots of all three shards) each get
 * a classify key, a spam report, a block-list entry and a strictness, written while replication
 * is in sync; `expectSurvived` reads every one back after the row and expects it unchanged.
 */
export const seedLearnedState = async (redis: RedisClient) => {
  const keystore = new Keystore({ redis, clock: systemClock });
  const feedback = new ReportStore({ redis, clock: systemClock });
  const owners = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const owner = await createKey(keystore, { kind: "classify" });
      const fields = [["message", `buy cheap backlinks number ${i} now`] as const];
      await feedback.record(owner.workspaceId, {
        workspaceId: owner.workspaceId,
        label: "spam",
        buckets: reportBuckets([11 + i, 4_096 + i, 70_000 + i]),
        fingerprint: encodeSignature(fingerprint(fields)),
        reportedAt: Date.now(),
        requestId: `req-${i}`,
      });
      await feedback.updateList(
        owner.workspaceId,
        "add",
        { kind: "block", type: "domain", value: `spam-${i}.example` },
        "test@example.com",
      );
      await feedback.setStrictness(owner.workspaceId, "strict");
      return owner;
    }),
  );
  // Written with replication in sync: give it a moment to reach the replicas.
  await sleep(500);
  const before = await Promise.all(owners.map((o) => feedback.snapshot(o.workspaceId)));
  return {
    /** Every workspace's learned state as before, and its key still resolving to it. */
    expectSurvived: async () => {
      for (const [i, owner] of owners.entries()) {
        const after = await feedback.snapshot(owner.workspaceId);
        expect(after).toEqual(before[i]);
        expect(after.version).toBeGreaterThan(0);
        expect(after.lists).toHaveLength(1);
        expect(after.strictness).toBe("strict");
        expect((await keystore.resolve(owner.secretKey))?.workspaceId).toBe(owner.workspaceId);
      }
    },
  };
};
