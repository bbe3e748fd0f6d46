import { z } from "zod";
import { hostField, portField, readConfig, ServiceConfig, type Env } from "@sift/runtime";

/** Each field's variable is in its `.meta({ env })`; the shared ones are in ServiceConfig. */
const Config = ServiceConfig.extend({
  port: portField(8081).meta({ env: ["VERIFY_PORT", "PORT"] }),
  host: hostField.meta({ env: "VERIFY_HOST" }),
  /** Challenge signing keys, `id:secret[@notBefore]` entries; unset: one derived from internalSecret. */
  signingSecrets: z.string().optional().meta({ env: "SIFT_CHALLENGE_KEYS" }),
  /** Keys for `full`-mode verdict log content, `id:base64 32 bytes,…`, newest last (docs/console.md). */
  logKeys: z.string().optional().meta({ env: "SIFT_LOG_KEYS" }),
  /**
   * Nodes that hold a spent marker before verify answers `ok: true`: `auto` is 2 on a Redis
   * Cluster (the marker and a twin on another master, written in parallel) and 1 on a single
   * Redis; `1` keeps one marker on a cluster, which a failover can lose (docs/deployment.md,
   * "Spent markers and failover").
   */
  spendMarkers: z
    .union([z.literal("auto"), z.coerce.number().pipe(z.union([z.literal(1), z.literal(2)]))])
    .default("auto")
    .meta({ env: "SIFT_SPEND_MARKERS" }),
  /**
   * Replicas that must hold the one marker before `ok: true` (WAIT after the SET NX; the design
   * before the pair, kept for comparison): `0`, the default, waits for none; `auto` is 1 on a
   * Redis Cluster with replicas. Not 0: one marker, whatever SIFT_SPEND_MARKERS says, and a
   * lagging replica answers `Internal server error`, which sites accept (docs/deployment.md).
   */
  spendReplicaAcks: z
    .union([z.literal("auto"), z.coerce.number().int().min(0).max(5)])
    .default(0)
    .meta({ env: "SIFT_SPEND_REPLICA_ACKS" }),
  /** How long WAIT waits for them: past it the answer is `Internal server error`, never ok. */
  spendWaitMs: z.coerce.number().int().positive().max(900).default(500).meta({ env: "SIFT_SPEND_WAIT_MS" }),
  /**
   * Connections that spends waiting for a replica are spread over (WAIT holds its connection):
   * with replica acknowledgement on, this many Redis clients, the request paths' one included.
   * 1 by default: on the test cluster 4 halved throughput (docs/reliability.md); measure first.
   */
  spendConnections: z.coerce.number().int().min(1).max(32).default(1).meta({ env: "SIFT_SPEND_CONNECTIONS" }),
});
export type VerifyConfig = Readonly<z.infer<typeof Config>>;

export const loadConfig = (env: Env): VerifyConfig => readConfig(Config, env);
