import { Agent, request } from "node:http";
import { REQUEST_ID_HEADER, type Identity } from "@sift/contracts";
import type { IdentitySigner } from "@sift/runtime";

/** A service's answer to an internal call: its status, headers and JSON body (null when not JSON). */
export interface ServiceAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/**
 * Above the classify service's own model time-out (so it answers 503 first), as the proxy's
 * `proxyTimeout` is.
 */
const CALL_TIMEOUT_MS = 15_000;
/** Service answers are small JSON objects; anything larger is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The drop-in routes' hop to a service: a JSON POST to one of its own endpoints, with the
 * identity signed for that endpoint's route, so the call takes exactly the path a direct
 * `/classify`, `/feedback` or `/verify` takes (allowance, verdict log, spend-once, …). Unlike
 * the proxy it reads the answer, which the route then translates. One keep-alive agent per
 * target (DESIGN.md: a connection per request halves throughput). Rejects when the service
 * cannot be reached or does not answer in time; the route answers that as the service's own
 * failure would be.
 */
export class ServiceCaller {
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 512 });
  readonly #target: URL;
  readonly #signer: IdentitySigner;

  constructor(target: string, signer: IdentitySigner) {
    this.#target = new URL(target);
    this.#signer = signer;
  }

  post(path: string, identity: Identity, body: unknown): Promise<ServiceAnswer> {
    const bytes = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const call = request(
        {
          protocol: this.#target.protocol,
          hostname: this.#target.hostname,
          port: this.#target.port,
          path,
          method: "POST",
          agent: this.#agent,
          timeout: CALL_TIMEOUT_MS,
          headers: {
            "content-type": "application/json",
            "content-length": bytes.length,
            [REQUEST_ID_HEADER]: identity.requestId,
            ...this.#signer.headers(identity),
          },
        },
        (answer) => {
          const chunks: Buffer[] = [];
          let size = 0;
          answer.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) return void call.destroy(new Error("service answer too large"));
            chunks.push(chunk);
          });
          answer.on("error", reject);
          answer.on("end", () => {
            let json: unknown = null;
            try {
              json = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              // Not JSON: left null, which the route reads as a failed call.
            }
            resolve({ status: answer.statusCode ?? 0, headers: answer.headers, json });
          });
        },
      );
      call.on("timeout", () => call.destroy(new Error("service call timed out")));
      call.on("error", reject);
      call.end(bytes);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
