export const DEPLOYMENT_TOPOLOGY = {
  gateway: 2,
  verify: 2,
  classify: 2,
  worker: 3,
  natsNodes: 3,
  redisMasters: 3,
  redisReplicasPerMaster: 1,
};
