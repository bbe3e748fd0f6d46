// cluster-key-slot ships no types: its default export is Redis Cluster's key → slot function.
declare module "cluster-key-slot" {
  const calculateSlot: (key: string) => number;
  export default calculateSlot;
}
