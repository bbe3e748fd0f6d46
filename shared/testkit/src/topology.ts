/**
 * The deployment issue 29's cluster rows run, and infra/k8s must declare the same
 * (shared/testkit/test/k8s-topology.test.ts checks): replicas of each service, model workers,
 * NATS nodes, Redis masters and replicas per master.
 */
export const DEPLOYMENT_TOPOLOGY = {
  gateway: 2,
  verify: 2,
  classify: 2,
  console: 2,
  worker: 3,
  natsNodes: 3,
  redisMasters: 3,
  redisReplicasPerMaster: 1,
} as const;
