import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { natsConfigRoutes } from "./nats-cluster.ts";
import { ROOT } from "./processes.ts";
import { DEPLOYMENT_TOPOLOGY } from "./topology.ts";

/**
 * The Kubernetes manifests against the deployment the cluster rows run (DEPLOYMENT_TOPOLOGY):
 * replicas, probes, the NATS cluster's routes and the NATS addresses each service is given.
 */
interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are checked field by field
  data?: Record<string, string>;
}
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const files = readdirSync(join(ROOT, "infra/k8s")).filter((f) => f !== "kustomization.yaml");
const manifests: Manifest[] = files.flatMap((file) =>
  parseAllDocuments(read(`infra/k8s/${file}`)).map((doc) => doc.toJS() as Manifest),
);
const find = (kind: string, name: string): Manifest => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in infra/k8s`);
  return found;
};

const DEPLOYMENTS = {
  gateway: "sift-gateway",
  verify: "sift-verify",
  classify: "sift-classify",
  console: "sift-console",
  worker: "sift-model-worker",
} as const;
type Scaled = keyof typeof DEPLOYMENTS;
const SCALED = Object.keys(DEPLOYMENTS) as Scaled[];

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { configMapKeyRef?: { name: string; key: string } };
}
/** A container's variable, read through its ConfigMap reference. */
const envOf = (deployment: string, name: string): string | undefined => {
  const env = find("Deployment", deployment).spec.template.spec.containers[0].env as EnvVar[];
  const entry = env.find((e) => e.name === name);
  const ref = entry?.valueFrom?.configMapKeyRef;
  return ref ? find("ConfigMap", ref.name).data![ref.key] : entry?.value;
};

describe("the Kubernetes manifests against the tested topology", () => {
  it.each(["gateway", "verify", "classify", "console"] as const)(
    "give %s a drain that outlasts the endpoint's removal, inside the shutdown deadline and grace period",
    (service) => {
      const name = DEPLOYMENTS[service];
      const drainMs = Number(envOf(name, "SIFT_SHUTDOWN_DRAIN_MS"));
      // Kubernetes takes endpoints out asynchronously (a second or two); runtime caps the drain at 5 s.
      expect(drainMs).toBeGreaterThanOrEqual(2_000);
      expect(drainMs).toBeLessThanOrEqual(5_000);
      // runService's whole shutdown (drain included) has 10 s; the kubelet must not cut it short.
      const graceSeconds = find("Deployment", name).spec.template.spec
        .terminationGracePeriodSeconds as number;
      expect(graceSeconds * 1_000).toBeGreaterThan(10_000);
    },
  );

  it.each(SCALED)("run %s with the tested replicas, and an HPA never below them", (service) => {
    const name = DEPLOYMENTS[service];
    expect(find("Deployment", name).spec.replicas).toBe(DEPLOYMENT_TOPOLOGY[service]);
    const hpa = manifests.find((m) => m.kind === "HorizontalPodAutoscaler" && m.metadata.name === name);
    if (hpa) expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(DEPLOYMENT_TOPOLOGY[service]);
  });

  it.each(SCALED)("probe %s's readiness on /readyz and its liveness on /healthz", (service) => {
    const c = find("Deployment", DEPLOYMENTS[service]).spec.template.spec.containers[0];
    expect(c.readinessProbe.httpGet.path).toBe("/readyz");
    expect(c.livenessProbe.httpGet.path).toBe("/healthz");
  });

  it("run the tested number of NATS nodes, each routed to every node", () => {
    const nats = find("StatefulSet", "nats");
    expect(nats.spec.replicas).toBe(DEPLOYMENT_TOPOLOGY.natsNodes);
    const routes = natsConfigRoutes(find("ConfigMap", "nats").data!["nats.conf"]!);
    expect(routes).toEqual(
      Array.from({ length: DEPLOYMENT_TOPOLOGY.natsNodes }, (_v, i) => `nats-${i}.${nats.spec.serviceName}`),
    );
    expect(find("Service", nats.spec.serviceName).spec.clusterIP).toBe("None");
    // The testkit's cluster is made from infra/config/nats.conf: the same count of routes.
    expect(natsConfigRoutes()).toHaveLength(DEPLOYMENT_TOPOLOGY.natsNodes);
  });

  it.each(["classify", "console", "worker"] as const)(
    "give %s every NATS node's address, one per node",
    (service) => {
      const value = envOf(DEPLOYMENTS[service], "NATS_URL");
      const nats = find("StatefulSet", "nats");
      const hosts = value!.split(",").map((url) => new URL(url.trim()).host);
      expect(hosts).toEqual(
        Array.from(
          { length: DEPLOYMENT_TOPOLOGY.natsNodes },
          (_v, i) => `nats-${i}.${nats.spec.serviceName}:4222`,
        ),
      );
    },
  );

  it("send a request lost with its gateway again at the edge, as the tested balancer does", () => {
    // The rows' HAProxy: a request whose replica closed the connection unanswered goes to another.
    expect(read("infra/haproxy/haproxy.cfg")).toMatch(/^\s*retry-on conn-failure empty-response$/m);
    expect(read("infra/haproxy/haproxy.cfg")).toMatch(/^\s*option redispatch 1$/m);
    // The manifests' ingress: nginx resends on a failed or reset hop, POSTs included, once more.
    const ingress = find("Ingress", DEPLOYMENTS.gateway);
    const annotations = ingress.metadata.annotations ?? {};
    const resendOn = annotations["nginx.ingress.kubernetes.io/proxy-next-upstream"]!.split(" ");
    expect(resendOn).toEqual(expect.arrayContaining(["error", "non_idempotent"]));
    expect(
      Number(annotations["nginx.ingress.kubernetes.io/proxy-next-upstream-tries"]),
    ).toBeGreaterThanOrEqual(2);
    expect(ingress.spec.rules[0].http.paths[0].backend.service.name).toBe(DEPLOYMENTS.gateway);
    // The console's forms are not sent twice, at either edge.
    expect(read("infra/haproxy/haproxy.cfg")).toMatch(/disable-l7-retry if \{ path_beg \/console \}/);
    const console = find("Ingress", "sift-console");
    const consoleResend = console.metadata.annotations?.["nginx.ingress.kubernetes.io/proxy-next-upstream"];
    expect(consoleResend?.split(" ")).not.toContain("non_idempotent");
    expect(console.spec.rules[0].http.paths[0].path).toBe("/console");
  });

  it("say how to run Redis with the tested masters and replicas", () => {
    const { redisMasters, redisReplicasPerMaster } = DEPLOYMENT_TOPOLOGY;
    // No self-run cluster is shipped (redis.yaml says why): its note gives the tested shape.
    expect(read("infra/k8s/redis.yaml")).toContain(
      `${redisMasters} masters, ${redisReplicasPerMaster} replica per master`,
    );
    expect(read("infra/k8s/sift.yaml")).toMatch(/REDIS_CLUSTER_NODES/);
  });
});
