import { spawn, type ChildProcess } from "node:child_process";
import { Resolver } from "node:dns/promises";
import { freePort } from "./ports.ts";

/** What a test zone holds: mail exchanges, address records, and the names it says do not exist. */
export interface TestZone {
  /** `domain → exchange` (MX 10). */
  mx?: Record<string, string>;
  /** `name → text`: a name that exists with neither MX nor address. */
  txt?: Record<string, string>;
  /** `name → IPv4 address`. */
  a?: Record<string, string>;
  /** The zone's suffix (`test`): every other name under it answers NXDOMAIN. */
  suffix: string;
}

export interface TestDns {
  /** `127.0.0.1:<port>`, as SIFT_EMAIL_DNS_SERVERS and Resolver.setServers take it. */
  readonly server: string;
  stop(): Promise<void>;
}

/**
 * A real DNS server for tests: Debian's dnsmasq (package dnsmasq-base) on a free UDP and TCP port
 * of 127.0.0.1, answering the zone's records and NXDOMAIN for any other name under its suffix,
 * asking no upstream. Resolves once it answers a query.
 */
export const startTestDns = async (zone: TestZone): Promise<TestDns> => {
  const port = await freePort();
  const args = [
    "--keep-in-foreground",
    "--conf-file=/dev/null",
    `--port=${port}`,
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    "--no-resolv",
    "--no-hosts",
    "--user=root",
    "--pid-file=",
    `--local=/${zone.suffix}/`,
    ...Object.entries(zone.mx ?? {}).map(([domain, exchange]) => `--mx-host=${domain},${exchange},10`),
    ...Object.entries(zone.txt ?? {}).map(([name, text]) => `--txt-record=${name},"${text}"`),
    ...Object.entries(zone.a ?? {}).map(([name, address]) => `--host-record=${name},${address}`),
  ];
  let child: ChildProcess;
  try {
    child = spawn("dnsmasq", args, { stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    throw new Error(
      `dnsmasq could not be started (${(err as Error).message}); install Debian's dnsmasq-base`,
    );
  }
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once("error", (err) =>
      reject(new Error(`dnsmasq could not be started (${err.message}); install Debian's dnsmasq-base`)),
    );
    child.once("exit", (code) => reject(new Error(`dnsmasq exited (${code}): ${stderr.trim()}`)));
  });
  const server = `127.0.0.1:${port}`;
  const resolver = new Resolver({ timeout: 200, tries: 1 });
  resolver.setServers([server]);
  const ready = (async () => {
    for (let i = 0; i < 50; i++) {
      try {
        await resolver.resolve4(`ready-probe.${zone.suffix}`);
        return;
      } catch (err) {
        // NXDOMAIN is an answer: the server is up.
        if ((err as { code?: string }).code === "ENOTFOUND") return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`dnsmasq did not answer on ${server}: ${stderr.trim()}`);
  })();
  await Promise.race([ready, failed]);
  failed.catch(() => undefined);
  return {
    server,
    stop: async () => {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
};
