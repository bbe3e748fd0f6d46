import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/**
 * tsx's loader, registered in the service's own node process (`node --import`): the `tsx` command
 * would run the service as its child and relay signals, SIGKILLing a child that does not
 * acknowledge a relayed SIGTERM within 30 ms, which a loaded machine can miss; a test's SIGTERM
 * must reach the service itself, as in a container.
 */
const TSX_LOADER = pathToFileURL(createRequire(`${ROOT}package.json`).resolve("tsx")).href;

export const SERVICE_ENTRIES = {
  gateway: "services/gateway/src/main.ts",
  verify: "services/verify/src/main.ts",
  classify: "services/classify/src/main.ts",
  worker: "services/model-worker/src/main.ts",
  console: "services/console/src/main.ts",
  management: "services/management/src/main.ts",
} as const;
export type ServiceName = keyof typeof SERVICE_ENTRIES;

/** Receives each line a service process writes (its pino log on stdout, anything on stderr). */
export type OutputSink = (name: ServiceName, line: string) => void;

/** Each service's package folder, where `pnpm build` writes dist/main.js. */
export const SERVICE_FOLDERS: Record<ServiceName, string> = {
  gateway: "services/gateway",
  verify: "services/verify",
  classify: "services/classify",
  worker: "services/model-worker",
  console: "services/console",
  management: "services/management",
};

export interface SpawnOptions {
  /** Drop the output instead of prefixing it with the service's name (unless `output` takes it). */
  quiet?: boolean;
  /** Each output line goes here instead (the fault tests read the logs). */
  output?: OutputSink;
  /** `node dist/main.js` in the service's folder (after `pnpm build`), as the images run it. */
  built?: boolean;
  /** Flags for node itself before the entry (`--cpu-prof`, a heap flag), as a profile run passes them. */
  nodeArgs?: string[];
}

/**
 * Runs one service as its own process (as a container would), from its TypeScript sources with
 * tsx or, `built`, from the bundle; its output prefixed by its name, or given to `output`, or
 * dropped when `quiet`.
 */
export const spawnService = (
  name: ServiceName,
  env: Record<string, string | undefined>,
  options: SpawnOptions = {},
): ChildProcess => {
  const piped = !options.quiet || options.output !== undefined;
  const nodeArgs = options.nodeArgs ?? [];
  const [node, args, cwd] = options.built
    ? [process.execPath, [...nodeArgs, "dist/main.js"], `${ROOT}${SERVICE_FOLDERS[name]}`]
    : [process.execPath, [...nodeArgs, "--import", TSX_LOADER, SERVICE_ENTRIES[name]], ROOT];
  // chrt execs node in its place: the pid, the signals and the exit are the service's own.
  const chrt = IDLE_CLASS.has(name) ? findChrt() : null;
  const [command, commandArgs] = chrt ? [chrt, ["--idle", "0", node, ...args]] : [node, args];
  const child = spawn(command, commandArgs, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", piped ? "pipe" : "ignore", piped ? "pipe" : "ignore"],
  });
  const nice = SERVICE_PRIORITY[name];
  if (nice !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, Math.min(19, getPriority() + nice));
    } catch {
      // A system that refuses it runs the service at the launcher's priority: slower to yield, not wrong.
    }
  }
  const sink: OutputSink =
    options.output ?? ((service, line) => process.stdout.write(`${service.padEnd(8)} | ${line}\n`));
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on("line", (line) => sink(name, line));
  }
  return child;
};

/** Resolves once `url` answers 200, or rejects after `timeoutMs`. */
export const waitForHttp = async (url: string, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer in ${timeoutMs} ms`);
};

export const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

/** Every service's port: the probes and metrics of each, the gateway's public and metrics ports. */
export interface StackPorts {
  gateway: number;
  metrics: number;
  verify: number;
  classify: number;
  worker: number;
  console: number;
  management: number;
}

/** Free loopback ports for the services, but those given. */
export const freeStackPorts = async (given: Partial<StackPorts> = {}): Promise<StackPorts> => {
  const { freePort } = await import("./ports.ts");
  const pick = async (name: keyof StackPorts) => given[name] ?? (await freePort());
  return {
    gateway: await pick("gateway"),
    metrics: await pick("metrics"),
    verify: await pick("verify"),
    classify: await pick("classify"),
    worker: await pick("worker"),
    console: await pick("console"),
    management: await pick("management"),
  };
};

/**
 * Node's options per service, as each image sets them (infra/docker/Dockerfile's ENV
 * NODE_OPTIONS, which infra.test.ts holds to this table). A young generation of 2 × 4 MB
 * instead of V8's 2 × 16 MB: the request paths' garbage dies young either way, and the 24 MB
 * less each kept the gateway and verify under 150 MB RSS at load (issue 30, docs/benchmarks.md
 * "Memory (issue 30)"; classify's bench peaks lie outside its heap). The worker 2 × 8 MB
 * (issue 40): with every logged verdict fully explained its batch arrays outlived a 4 MB
 * semi-space and grew its old space; with the log's light reasons 8 MB took its peak from 166
 * to 143 MB in `pnpm bench --only classify,worker --quick`, and 4 MB no further (142).
 */
export const SERVICE_NODE_OPTIONS: Partial<Record<ServiceName, string>> = {
  gateway: "--max-semi-space-size=4",
  verify: "--max-semi-space-size=4",
  classify: "--max-semi-space-size=4",
  worker: "--max-semi-space-size=8",
};

/**
 * Each service's scheduling priority (nice, added to the launcher's own) where one machine runs them all, as the
 * launcher, the process tests and the benches do: the management API below the request paths,
 * as compose gives it half a CPU and Kubernetes 500m, so a control panel's heavy /v1 load takes
 * what classify and verify leave rather than their share (issue 58; docs/hosts.md). +19, the
 * lowest: `pnpm bench:hosts --only beside` at 10,000 sites kept classify at 0.97 x / 0.90 x
 * beside the busy / heavy load where +10 kept 0.87 x / 0.73 x (one run each, load 2.5-2.6).
 */
export const SERVICE_PRIORITY: Partial<Record<ServiceName, number>> = { management: 19 };

/**
 * The services that run in Linux's idle scheduling class (SCHED_IDLE, through util-linux's
 * `chrt --idle 0`) where one machine runs them all, beside their nice: a nice +19 process keeps a
 * small share of a busy core and runs out its slice when a request path wakes, an idle-class
 * one is preempted at the wake-up and its core counts as free when the kernel places a waking
 * task. The management API's heavy /v1 load (pages of 1,000 workspaces) then takes only the CPU
 * classify and verify leave. Without chrt (not Linux, or no util-linux) the nice alone applies.
 */
export const IDLE_CLASS: ReadonlySet<ServiceName> = new Set(["management"]);

/** util-linux's chrt on the PATH (or in /usr/bin, which a minimal PATH may lack), or null. */
const findChrt = (): string | null => {
  if (process.platform !== "linux") return null;
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter).filter(Boolean), "/usr/bin", "/bin"];
  return dirs.map((dir) => join(dir, "chrt")).find((path) => existsSync(path)) ?? null;
};

const nodeOptions = (name: ServiceName): Record<string, string> => {
  const options = SERVICE_NODE_OPTIONS[name];
  return options ? { NODE_OPTIONS: options } : {};
};

/**
 * Each service's environment, wired to the others on loopback by environment alone, as the
 * containers are: the launcher, the process tests, the benches and startSift all start them so.
 */
export const stackEnv = (
  ports: StackPorts,
  common: Record<string, string>,
): Record<ServiceName, Record<string, string>> => ({
  worker: { ...nodeOptions("worker"), ...common, MODEL_WORKER_PORT: String(ports.worker) },
  verify: { ...nodeOptions("verify"), ...common, VERIFY_PORT: String(ports.verify) },
  classify: { ...nodeOptions("classify"), ...common, CLASSIFY_PORT: String(ports.classify) },
  console: { ...nodeOptions("console"), ...common, CONSOLE_PORT: String(ports.console) },
  management: { ...nodeOptions("management"), ...common, MANAGEMENT_PORT: String(ports.management) },
  gateway: {
    ...nodeOptions("gateway"),
    ...common,
    SIFT_PORT: String(ports.gateway),
    SIFT_METRICS_PORT: String(ports.metrics),
    VERIFY_URL: `http://127.0.0.1:${ports.verify}`,
    CLASSIFY_URL: `http://127.0.0.1:${ports.classify}`,
    CONSOLE_URL: `http://127.0.0.1:${ports.console}`,
    SIFT_MANAGEMENT_URL: `http://127.0.0.1:${ports.management}`,
  },
});

/**
 * The services as processes (the console aside), quiet (or their output to `output`), resolved once the gateway
 * and the worker are ready. `env` is each one's environment, to start it again on its port;
 * `built` runs the bundles (`pnpm build` first), `without` leaves services out (a bench puts its
 * own worker in the model worker's place).
 */
export const spawnStack = async (
  common: Record<string, string>,
  options: {
    extra?: Partial<Record<ServiceName, Record<string, string>>>;
    output?: OutputSink;
    built?: boolean;
    without?: ServiceName[];
    /** Each service's node flags (spawnService's `nodeArgs`). */
    nodeArgs?: Partial<Record<ServiceName, string[]>>;
  } = {},
) => {
  const ports = await freeStackPorts();
  const base = stackEnv(ports, common);
  const env = Object.fromEntries(
    (Object.keys(base) as ServiceName[]).map((name) => [name, { ...base[name], ...options.extra?.[name] }]),
  ) as Record<ServiceName, Record<string, string>>;
  const output = options.output ? { output: options.output } : {};
  const names = (["worker", "verify", "classify", "management", "gateway"] as const).filter(
    (name) => !options.without?.includes(name),
  );
  const children = new Map<ServiceName, ChildProcess>(
    names.map((name) => [
      name,
      spawnService(name, env[name], {
        quiet: true,
        built: options.built ?? false,
        nodeArgs: options.nodeArgs?.[name] ?? [],
        ...output,
      }),
    ]),
  );
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  if (children.has("worker")) await waitForHttp(`http://127.0.0.1:${ports.worker}/readyz`);
  if (children.has("gateway")) await waitForHttp(`${baseUrl}/readyz`);
  return {
    ports,
    env,
    children,
    baseUrl,
    stop: async () => void (await Promise.all([...children.values()].map(stopChild))),
  };
};
