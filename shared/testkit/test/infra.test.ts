import { readdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { createRegistry, serviceApp, silentLogger } from "@sift/runtime";
import { ROOT, SERVICE_NODE_OPTIONS } from "@sift/testkit";
import { TARGETS } from "../../../infra/build/build.ts";
import { loadConfig as classifyConfig } from "@sift/classify/config";
import { loadConfig as consoleConfig } from "@sift/console/config";
import { loadConfig as gatewayConfig } from "@sift/gateway/config";
import { loadConfig as managementConfig } from "@sift/management-service/config";
import { loadConfig as workerConfig } from "@sift/model-worker/config";
import { loadConfig as verifyConfig } from "@sift/verify/config";

/**
 * The compose file, the Kubernetes manifests and the Dockerfile against the code: every service
 * has an image target, a compose service and a Deployment; each environment holds only
 * variables the service's loadConfig reads and is enough for it to start; ports, probes, metrics
 * and service addresses agree with what the code listens on and serves.
 */
type Env = Record<string, string | undefined>;
const SERVICES = {
  gateway: { load: (env: Env) => gatewayConfig(env), port: "port", metrics: "metricsPort" },
  verify: { load: (env: Env) => verifyConfig(env), port: "port" },
  classify: { load: (env: Env) => classifyConfig(env), port: "port" },
  "model-worker": { load: (env: Env) => workerConfig(env), port: "port" },
  console: { load: (env: Env) => consoleConfig(env), port: "port" },
  management: { load: (env: Env) => managementConfig(env), port: "port" },
} as const;
type Service = keyof typeof SERVICES;
const NAMES = Object.keys(SERVICES) as Service[];
/** Stands for the Secret's or the .env file's value. */
const SECRET = "s".repeat(32);
/** Set in the images for node itself and the HEALTHCHECK (the port's variable), not read by any config. */
const RUNTIME_ENV = new Set(["NODE_ENV", "NODE_OPTIONS", "SIFT_PORT_VARIABLE"]);

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
/** The variables the service's loadConfig looks up, as it looks them up. */
const configKeys = (service: Service): Set<string> => {
  const keys = new Set<string>();
  const env = new Proxy<Env>(
    { SIFT_INTERNAL_SECRET: SECRET },
    { get: (target, key) => (typeof key === "string" ? (keys.add(key), target[key]) : undefined) },
  );
  SERVICES[service].load(env);
  return keys;
};
const listens = (service: Service, env: Env) => {
  const config = SERVICES[service].load(env) as unknown as Record<string, number>;
  const { port, metrics } = SERVICES[service] as { port: string; metrics?: string };
  return { port: config[port]!, metrics: metrics ? config[metrics] : undefined };
};

// --- the Dockerfile, stage by stage ---
interface Stage {
  name: string;
  from: string;
  text: string;
  env: Record<string, string>;
}
const dockerfile = read("infra/docker/Dockerfile").replace(/\\\n\s*/g, "");
const stages: Stage[] = dockerfile
  .split(/^(?=FROM )/m)
  .filter((s) => s.startsWith("FROM "))
  .map((text) => {
    const [, from, name] = /^FROM (\S+) AS (\S+)/.exec(text)!;
    const env: Record<string, string> = {};
    for (const [, line] of text.matchAll(/^ENV (.+)$/gm)) {
      for (const [, key, value] of line!.matchAll(/([A-Z0-9_]+)=(\S+)/g)) env[key!] = value!;
    }
    return { name: name!, from: from!, text, env };
  });
const stage = (name: string): Stage => {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`no Dockerfile stage ${name}`);
  return found;
};
const imageEnv = (service: Service): Record<string, string> => ({
  ...stage(stage(service).from).env,
  ...stage(service).env,
});

// --- compose and Kubernetes ---
interface ComposeService {
  build?: { context: string; dockerfile: string; target: string };
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, unknown>;
  networks?: { default?: { aliases?: string[] } };
  cpu_shares?: number;
}
// Compose files use YAML 1.1 merge keys (<<: *anchor).
const compose = parse(read("infra/compose.yaml"), { merge: true }) as {
  services: Record<string, ComposeService>;
};
/** The URLs in a variable's value: none, one, or a comma-separated list (NATS_URL). */
const addresses = (value: string): string[] =>
  /^\w+:\/\//.test(value) ? value.split(",").map((v) => v.trim()) : [];
const composeValue = (value: string) => value.replace(/\$\{SIFT_INTERNAL_SECRET[^}]*\}/, SECRET);

interface K8s {
  kind: string;
  metadata: { name: string };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- manifests are checked field by field
  data?: Record<string, string>;
}
const k8sFiles = readdirSync(join(ROOT, "infra/k8s")).filter((f) => f !== "kustomization.yaml");
const manifests: K8s[] = k8sFiles.flatMap((file) =>
  parseAllDocuments(read(`infra/k8s/${file}`)).map((doc) => doc.toJS() as K8s),
);
const find = (kind: string, name: string): K8s => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in infra/k8s`);
  return found;
};
const container = (service: Service) =>
  find("Deployment", `sift-${service}`).spec.template.spec.containers[0];
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    configMapKeyRef?: { name: string; key: string };
    secretKeyRef?: { name: string; key: string };
  };
}
const k8sEnv = (service: Service): Record<string, string> =>
  Object.fromEntries(
    (container(service).env as EnvVar[]).map(({ name, value, valueFrom }) => {
      if (value !== undefined) return [name, value];
      if (valueFrom?.secretKeyRef) return [name, SECRET];
      const ref = valueFrom!.configMapKeyRef!;
      const data = find("ConfigMap", ref.name).data!;
      expect(data[ref.key], `ConfigMap ${ref.name} key ${ref.key}`).toBeDefined();
      return [name, data[ref.key]!];
    }),
  );
const containerPort = (service: Service, name: string): number =>
  (container(service).ports as { name: string; containerPort: number }[]).find((p) => p.name === name)!
    .containerPort;

describe("the Dockerfile", () => {
  it.each(NAMES)("has a runtime target %s that runs its build output as a non-root user", (service) => {
    const target = stage(service);
    expect(target.from).toBe("runtime");
    expect(stage("runtime").text).toMatch(/^USER node$/m);
    expect(stage("runtime").text).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
    expect(target.text).not.toMatch(/^(CMD|HEALTHCHECK) /m);
    const manifest = JSON.parse(read(`services/${service}/package.json`)) as {
      main: string;
      files: string[];
    };
    expect(manifest.main).toBe("dist/main.js");
    expect(manifest.files).toEqual(["dist"]);
    expect(TARGETS[service]).toBe(`services/${service}`);
    expect(target.text).toContain(`COPY --from=build /out/${service} /app`);
    expect(stage("build").text).toMatch(new RegExp(`for service in [^;]*\\b${service}\\b[^;]*;`));
  });

  it.each(NAMES)("gives %s the node options the processes the tests and benches start get", (service) => {
    const name = service === "model-worker" ? "worker" : service;
    expect(imageEnv(service)["NODE_OPTIONS"]).toBe(SERVICE_NODE_OPTIONS[name]);
  });

  it.each(NAMES)(
    "sets only %s's own variables, and its HEALTHCHECK probes /readyz on its port",
    (service) => {
      const env = imageEnv(service);
      const keys = configKeys(service);
      for (const key of Object.keys(env)) if (!RUNTIME_ENV.has(key)) expect(keys).toContain(key);
      const { port, metrics } = listens(service, { ...env, SIFT_INTERNAL_SECRET: SECRET });
      const exposed = /^EXPOSE (.+)$/m.exec(stage(service).text)![1]!.split(" ").map(Number);
      expect(exposed).toEqual(metrics === undefined ? [port] : [port, metrics]);
      const check = /^HEALTHCHECK .* CMD (\[.+\])$/m.exec(stage("runtime").text);
      const [, portVar, path] = /process\.env\[process\.env\.([A-Z0-9_]+)\]\}(\/\w+)/.exec(
        JSON.parse(check![1]!).join(" "),
      )!;
      expect(path).toBe("/readyz");
      expect(Number(env[env[portVar!]!])).toBe(port);
    },
  );
});

describe("the compose file", () => {
  const hosts = new Set(
    Object.entries(compose.services).flatMap(([name, s]) => [name, ...(s.networks?.default?.aliases ?? [])]),
  );

  it.each(NAMES)("runs %s from its image target with what its config reads and needs", (service) => {
    const entry = compose.services[service]!;
    expect(entry.build).toEqual({ context: "..", dockerfile: "infra/docker/Dockerfile", target: service });
    const env = Object.fromEntries(
      Object.entries(entry.environment ?? {}).map(([k, v]) => [k, composeValue(v)]),
    );
    const keys = configKeys(service);
    for (const key of Object.keys(env)) expect(keys, `${service}: ${key}`).toContain(key);
    const { port } = listens(service, { ...imageEnv(service), ...env });
    for (const mapping of entry.ports ?? []) expect(Number(mapping.split(":").at(-1))).toBe(port);
    for (const dependency of Object.keys(entry.depends_on ?? {}))
      expect(compose.services).toHaveProperty(dependency);
    // Every address (NATS_URL: each of a comma-separated list) points at a compose host, on the
    // port that service listens on.
    for (const value of Object.values(env).flatMap(addresses)) {
      const url = new URL(value);
      expect(hosts, value).toContain(url.hostname);
      if (url.hostname in SERVICES) {
        const target = url.hostname as Service;
        const targetEnv = Object.fromEntries(
          Object.entries(compose.services[target]!.environment ?? {}).map(([k, v]) => [k, composeValue(v)]),
        );
        expect(Number(url.port)).toBe(listens(target, { ...imageEnv(target), ...targetEnv }).port);
      }
    }
  });

  it("runs a three-node NATS cluster with JetStream behind the alias nats, and Redis with AOF", () => {
    const nodes = Object.entries(compose.services).filter(([, s]) => s.image?.startsWith("nats:"));
    expect(nodes).toHaveLength(3);
    const names = nodes.map(([, s]) => s.command![s.command!.indexOf("--name") + 1]);
    expect(new Set(names).size).toBe(3);
    for (const [, s] of nodes) expect(s.networks?.default?.aliases).toContain("nats");
    const conf = read("infra/config/nats.conf");
    expect(conf).toMatch(/jetstream \{/);
    expect([...conf.matchAll(/nats-route:\/\/(\S+):6222/g)].map((m) => m[1]).sort()).toEqual(
      nodes.map(([name]) => name).sort(),
    );
    expect(compose.services["redis"]!.command).toEqual(["redis-server", "/etc/redis/redis.conf"]);
    expect(read("infra/config/redis.conf")).toMatch(/^appendonly yes$/m);
    expect(read("infra/config/redis.conf")).toMatch(/^appendfsync everysec$/m);
  });

  it("gives the management API a CPU weight below the request paths' (issue 58)", () => {
    const weight = (name: string) => compose.services[name]!.cpu_shares ?? 1024;
    expect(weight("management")).toBeLessThan(1024);
    for (const name of ["gateway", "verify", "classify", "model-worker"]) expect(weight(name)).toBe(1024);
  });
});

describe("the Kubernetes manifests", () => {
  it("are all listed in the kustomization", () => {
    expect((parse(read("infra/k8s/kustomization.yaml")) as { resources: string[] }).resources.sort()).toEqual(
      k8sFiles.sort(),
    );
  });

  it.each(NAMES)("run %s's image with its own variables, probes, ports and resources", (service) => {
    const c = container(service);
    expect(c.image).toMatch(new RegExp(`^sift/${service}:`));
    const env = k8sEnv(service);
    const keys = configKeys(service);
    for (const key of Object.keys(env)) expect(keys, `${service}: ${key}`).toContain(key);
    const { port, metrics } = listens(service, { ...imageEnv(service), ...env });
    expect(containerPort(service, "http")).toBe(port);
    expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "http" });
    expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "http" });
    expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(c.resources.limits).toMatchObject({ cpu: expect.anything(), memory: expect.any(String) });
    const annotations = find("Deployment", `sift-${service}`).spec.template.metadata.annotations;
    expect(Number(annotations["prometheus.io/port"])).toBe(metrics ?? port);
    if (metrics !== undefined) expect(containerPort(service, "metrics")).toBe(metrics);
    // Addresses name a Service of these manifests (`<pod>.<service>` a StatefulSet's pod through
    // its headless Service), on one of its ports.
    for (const value of Object.values(env).flatMap(addresses)) {
      const url = new URL(value);
      const service = url.hostname.split(".").at(-1)!;
      const ports = (find("Service", service).spec.ports as { port: number }[]).map((p) => p.port);
      expect(ports, value).toContain(Number(url.port));
    }
  });

  it("give every Deployment and StatefulSet a Service and a PDB, and the gateway and workers an HPA", () => {
    for (const workload of manifests.filter((m) => m.kind === "Deployment" || m.kind === "StatefulSet")) {
      const labels = workload.spec.template.metadata.labels;
      expect(workload.spec.selector.matchLabels).toEqual(labels);
      const services = manifests.filter((m) => m.kind === "Service" && m.spec.selector?.app === labels.app);
      expect(services.length, workload.metadata.name).toBeGreaterThan(0);
      if (workload.spec.replicas > 1) {
        const pdb = manifests.find(
          (m) => m.kind === "PodDisruptionBudget" && m.spec.selector.matchLabels.app === labels.app,
        );
        expect(pdb, `PDB for ${workload.metadata.name}`).toBeDefined();
      }
    }
    for (const name of ["sift-gateway", "sift-model-worker"]) {
      expect(find("HorizontalPodAutoscaler", name).spec.scaleTargetRef).toEqual({
        apiVersion: "apps/v1",
        kind: "Deployment",
        name,
      });
    }
  });

  it("run three NATS nodes with JetStream routed to one another, and Redis with the AOF config", () => {
    const nats = find("StatefulSet", "nats");
    expect(nats.spec.replicas).toBe(3);
    const conf = find("ConfigMap", "nats").data!["nats.conf"]!;
    expect(conf).toMatch(/jetstream \{/);
    const routes = [...conf.matchAll(/nats-route:\/\/([\w-]+)\.([\w-]+):6222/g)];
    expect(routes.map((m) => m[1])).toEqual(["nats-0", "nats-1", "nats-2"]);
    for (const m of routes) expect(m[2]).toBe(nats.spec.serviceName);
    expect(find("Service", nats.spec.serviceName).spec.clusterIP).toBe("None");
    expect(find("ConfigMap", "redis").data!["redis.conf"]).toBe(read("infra/config/redis.conf"));
  });
});

describe("the probe paths", () => {
  it("are the ones every service's skeleton serves", async () => {
    const paths = new Set<string>(["/readyz", "/healthz", "/metrics"]);
    for (const service of NAMES) {
      const c = container(service);
      paths
        .add(c.readinessProbe.httpGet.path)
        .add(c.livenessProbe.httpGet.path)
        .add(c.startupProbe.httpGet.path);
      paths.add(
        find("Deployment", `sift-${service}`).spec.template.metadata.annotations["prometheus.io/path"],
      );
    }
    const app = serviceApp(
      { logger: silentLogger(), readiness: {}, metrics: createRegistry("infra-test") },
      () => undefined,
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const path of paths)
        expect((await fetch(`http://127.0.0.1:${port}${path}`)).status, path).toBe(200);
    } finally {
      server.close();
    }
  });
});
