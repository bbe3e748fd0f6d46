import { AccountStore } from "@sift/console/accounts";
import type { Role } from "@sift/console/roles";
import type { Stack } from "@sift/testkit";

export const PASSWORD = "correct horse battery staple";

/** A console user (as `sift console user add` makes one), with a role in each given workspace. */
export const addUser = async (
  stack: Stack,
  email: string,
  options: { operator?: boolean; roles?: Record<string, Role> } = {},
) => {
  const accounts = new AccountStore({ redis: stack.redis, clock: stack.clock });
  const user = await accounts.addUser({ email, password: PASSWORD, operator: options.operator ?? false });
  if (!user) throw new Error(`${email} exists`);
  for (const [workspaceId, role] of Object.entries(options.roles ?? {})) {
    await accounts.setRole(workspaceId, user.id, role);
  }
  return user;
};

export interface Page {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A cookie-keeping HTTP client of the console through the gateway (no browser): it remembers
 * the cookies it is given and reads each page's CSRF token, as a browser's forms would send it.
 */
export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  csrf = "";

  /**
   * `address`: the client address to claim in X-Forwarded-For (the stack must trust one proxy
   * hop). The sign-in throttle's per-address bucket lives in the Redis every test file shares,
   * timed by each stack's clock: a file whose clock is moved must sign in from its own address,
   * or it throttles (or is throttled by) the other files' sign-ins from 127.0.0.1.
   */
  constructor(
    readonly base: string,
    readonly address?: string,
  ) {}

  async request(path: string, init: RequestInit & { fields?: Record<string, string> } = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.address) headers.set("x-forwarded-for", this.address);
    if (this.cookies.size > 0) {
      headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    }
    let body = init.body;
    if (init.fields) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.fields).toString();
    }
    const res = await fetch(this.base + path, { ...init, headers, body: body ?? null, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text);
    if (token) this.csrf = token[1]!;
    return { status: res.status, headers: res.headers, text };
  }

  get(path: string, headers?: Record<string, string>): Promise<Page> {
    return this.request(path, headers ? { headers } : {});
  }

  /** A form POST carrying the last page's CSRF token (unless the fields say otherwise). */
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Page> {
    return this.request(path, {
      method: "POST",
      fields: { _csrf: this.csrf, ...fields },
      ...(headers ? { headers } : {}),
    });
  }

  async signIn(email: string, password = PASSWORD): Promise<Page> {
    await this.get("/console/sign-in");
    return this.post("/console/sign-in", { email, password });
  }
}
