import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { FriendlyCaptchaClient } from "@friendlycaptcha/server-sdk";
import { betterAuth } from "better-auth";
import { memoryAdapter } from "better-auth/adapters/memory";
import { captcha } from "better-auth/plugins";
import { createKey, post, solveChallenge, startStack, type Stack } from "@sift/testkit";

/**
 * The siteverify shapes on the gateway, driven by real clients from npm, unchanged and only
 * configured: @friendlycaptcha/server-sdk (`apiEndpoint`) and better-auth's captcha plugin
 * (`siteVerifyURLOverride`) for its Turnstile, reCAPTCHA and hCaptcha providers, on an in-memory
 * database (its memory adapter: no database server). Then each shape's error codes, test secrets
 * and what is spent or counted, by plain HTTP. One stack for the file; no model is needed.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ redisUrl: inject("redisUrl"), natsUrl: inject("natsUrl") });
});
afterAll(() => stack?.stop());

/** A challenge configuration at the lowest difficulty, so solving takes no time. */
const site = async () => {
  const key = await createKey(stack.keystore, { kind: "challenge" });
  await stack.keystore.updateConfig(key.configId, { difficulty: 1 });
  return { ...key, siteKey: key.siteKey! };
};
const solved = (siteKey: string) => solveChallenge(stack.gatewayUrl, siteKey);

describe("@friendlycaptcha/server-sdk", () => {
  const client = (apiKey: string, sitekey?: string) =>
    new FriendlyCaptchaClient({ apiKey, apiEndpoint: stack.gatewayUrl, ...(sitekey ? { sitekey } : {}) });

  it("accepts a solution once, then answers response_duplicate", async () => {
    const { secretKey, siteKey } = await site();
    const solution = await solved(siteKey);
    const first = await client(secretKey, siteKey).verifyCaptchaResponse(solution);
    expect([first.wasAbleToVerify(), first.shouldAccept()]).toEqual([true, true]);
    expect(first.getResponse()).toMatchObject({
      success: true,
      data: { challenge: { timestamp: expect.any(String) } },
    });
    const again = await client(secretKey, siteKey).verifyCaptchaResponse(solution);
    expect([again.wasAbleToVerify(), again.shouldAccept(), again.getResponseError()?.error_code]).toEqual([
      true,
      false,
      "response_duplicate",
    ]);
  });

  it("rejects a wrong solution as response_invalid", async () => {
    const { secretKey } = await site();
    const result = await client(secretKey).verifyCaptchaResponse("1.not.a.solution");
    expect([result.wasAbleToVerify(), result.shouldReject(), result.getResponseError()?.error_code]).toEqual([
      true,
      true,
      "response_invalid",
    ]);
  });

  it("answers a wrong API key as auth_invalid (401), a wrong sitekey as sitekey_invalid, spending nothing", async () => {
    const { secretKey, siteKey } = await site();
    const solution = await solved(siteKey);
    const wrongKey = await client("sk_wrong", siteKey).verifyCaptchaResponse(solution);
    expect([wrongKey.wasAbleToVerify(), wrongKey.getResponseError()?.error_code]).toEqual([
      false,
      "auth_invalid",
    ]);
    const wrongSite = await client(secretKey, "pk_other").verifyCaptchaResponse(solution);
    expect(wrongSite.getResponseError()?.error_code).toBe("sitekey_invalid");
    expect((await client(secretKey, siteKey).verifyCaptchaResponse(solution)).shouldAccept()).toBe(true);
  });
});

describe("@friendlycaptcha/server-sdk with Sift's test key", () => {
  it("accepts the solution ok and rejects any other, spending nothing", async () => {
    const client = new FriendlyCaptchaClient({ apiKey: "test", apiEndpoint: stack.gatewayUrl });
    expect((await client.verifyCaptchaResponse("ok")).shouldAccept()).toBe(true);
    expect((await client.verifyCaptchaResponse("ok")).shouldAccept()).toBe(true);
    expect((await client.verifyCaptchaResponse("nok")).getResponseError()?.error_code).toBe(
      "response_invalid",
    );
  });
});

describe.each([
  ["cloudflare-turnstile", "/turnstile/v0/siteverify"],
  ["google-recaptcha", "/recaptcha/api/siteverify"],
  ["hcaptcha", "/siteverify"],
] as const)("better-auth's captcha plugin, provider %s", (provider, path) => {
  const app = (secretKey: string) =>
    betterAuth({
      secret: "a-test-secret-of-at-least-32-characters",
      baseURL: "http://app.example",
      database: memoryAdapter({ user: [], session: [], account: [], verification: [] }),
      emailAndPassword: { enabled: true },
      telemetry: { enabled: false },
      logger: { disabled: true },
      plugins: [captcha({ provider, secretKey, siteVerifyURLOverride: `${stack.gatewayUrl}${path}` })],
    });
  let signUps = 0;
  const signUp = async (auth: ReturnType<typeof app>, response: string) => {
    signUps += 1;
    const reply = await auth.handler(
      new Request("http://app.example/api/auth/sign-up/email", {
        method: "POST",
        headers: { "content-type": "application/json", "x-captcha-response": response },
        body: JSON.stringify({
          email: `user${signUps}-${provider}@example.com`,
          password: "correct horse battery",
          name: "Ann",
        }),
      }),
    );
    return reply.status;
  };

  it("signs up with a solved challenge once, and refuses the same solution again", async () => {
    const { secretKey, siteKey } = await site();
    const auth = app(secretKey);
    const solution = await solved(siteKey);
    expect(await signUp(auth, solution)).toBe(200);
    expect(await signUp(auth, solution)).toBe(403);
  });

  it("honours the vendor's documented test secret, as the vendor's own service would", async () => {
    const passing = {
      "cloudflare-turnstile": ["1x0000000000000000000000000000000AA", "XXXX.DUMMY.TOKEN.XXXX"],
      "google-recaptcha": ["6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe", "any-token"],
      hcaptcha: ["0x0000000000000000000000000000000000000000", "10000000-aaaa-bbbb-cccc-000000000001"],
    }[provider];
    expect(await signUp(app(passing[0]!), passing[1]!)).toBe(200);
    if (provider === "cloudflare-turnstile") {
      expect(await signUp(app("2x0000000000000000000000000000000AA"), passing[1]!)).toBe(403);
    }
  });

  it("refuses a wrong solution, and any solution with a wrong secret", async () => {
    const { siteKey, secretKey } = await site();
    expect(await signUp(app(secretKey), "1.not.a.solution")).toBe(403);
    expect(await signUp(app("sk_wrong"), await solved(siteKey))).toBe(403);
  });
});

describe("the siteverify shapes", () => {
  const verify = (path: string, body: Record<string, unknown>, form = false) =>
    post(
      `${stack.gatewayUrl}${path}`,
      form ? new URLSearchParams(body as Record<string, string>).toString() : body,
      form ? { "content-type": "application/x-www-form-urlencoded" } : {},
    );

  it.each([
    [
      "/turnstile/v0/siteverify",
      [
        "missing-input-secret",
        "missing-input-response",
        "invalid-input-secret",
        "timeout-or-duplicate",
        "invalid-input-response",
      ],
    ],
    [
      "/recaptcha/api/siteverify",
      [
        "missing-input-secret",
        "missing-input-response",
        "invalid-input-secret",
        "timeout-or-duplicate",
        "invalid-input-response",
      ],
    ],
    [
      "/siteverify",
      [
        "missing-input-secret",
        "missing-input-response",
        "invalid-input-secret",
        "already-seen-response",
        "sitekey-secret-mismatch",
      ],
    ],
  ])("%s answers 200 with the vendor's error codes, form or JSON", async (path, codes) => {
    const { secretKey, siteKey } = await site();
    const other = await site();
    const solution = await solved(siteKey);
    const otherSolution = await solved(other.siteKey);
    const ok = await verify(path, { secret: secretKey, response: solution }, true);
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ success: true, "error-codes": [] });
    expect(Date.parse((ok.json as { challenge_ts: string }).challenge_ts)).toBeGreaterThan(
      Date.now() - 60_000,
    );
    const answers = await Promise.all([
      verify(path, { response: solution }),
      verify(path, { secret: secretKey }),
      verify(path, { secret: "sk_wrong", response: solution }),
      verify(path, { secret: secretKey, response: solution }),
      verify(path, { secret: secretKey, response: otherSolution }, true),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => (a.json as { "error-codes": string[] })["error-codes"])).toEqual(
      codes.map((c) => [c]),
    );
  });

  it("answers a body that is neither JSON nor a form as bad-request, still 200", async () => {
    const reply = await post(`${stack.gatewayUrl}/turnstile/v0/siteverify`, "secret=x", {
      "content-type": "text/plain",
    });
    expect([reply.status, reply.json]).toEqual([
      200,
      { success: false, hostname: "", "error-codes": ["bad-request"] },
    ]);
  });

  it("answers the vendors' test secrets as the vendors do, without reaching verify", async () => {
    const turnstile = (secret: string) =>
      verify("/turnstile/v0/siteverify", { secret, response: "XXXX.DUMMY.TOKEN.XXXX" });
    expect((await turnstile("1x0000000000000000000000000000000AA")).json).toMatchObject({ success: true });
    expect((await turnstile("2x0000000000000000000000000000000AA")).json).toMatchObject({
      success: false,
      "error-codes": ["invalid-input-response"],
    });
    expect((await turnstile("3x0000000000000000000000000000000AA")).json).toMatchObject({
      success: false,
      "error-codes": ["timeout-or-duplicate"],
    });
    const recaptcha = await verify("/recaptcha/api/siteverify", {
      secret: "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
      response: "anything",
    });
    expect(recaptcha.json).toMatchObject({ success: true });
    const hcaptcha = (response: string) =>
      verify("/siteverify", { secret: "0x0000000000000000000000000000000000000000", response });
    expect((await hcaptcha("10000000-aaaa-bbbb-cccc-000000000001")).json).toMatchObject({ success: true });
    expect((await hcaptcha("other")).json).toMatchObject({
      success: false,
      "error-codes": ["not-using-dummy-passcode"],
    });
    // A real key never takes the dummy token, as at Cloudflare.
    const { secretKey } = await site();
    expect(
      (await verify("/turnstile/v0/siteverify", { secret: secretKey, response: "XXXX.DUMMY.TOKEN.XXXX" }))
        .json,
    ).toMatchObject({
      success: false,
      "error-codes": ["invalid-input-response"],
    });
  });

  it("answers Sift's test key on every shape, as the README shows", async () => {
    for (const path of ["/siteverify", "/turnstile/v0/siteverify", "/recaptcha/api/siteverify"]) {
      expect((await verify(path, { secret: "test", response: "ok" }, true)).json).toMatchObject({
        success: true,
        "error-codes": [],
      });
      expect((await verify(path, { secret: "test", response: "nok" })).json).toMatchObject({
        success: false,
        "error-codes": ["invalid-input-response"],
      });
    }
  });

  it("spends a solution once across every shape and /verify", async () => {
    const { secretKey, siteKey } = await site();
    const solution = await solved(siteKey);
    expect(
      (await verify("/recaptcha/api/siteverify", { secret: secretKey, response: solution })).json,
    ).toMatchObject({ success: true });
    expect((await post(`${stack.gatewayUrl}/verify`, { secretKey, solution })).json).toEqual({
      ok: false,
      message: "Spent challenge",
    });
    expect((await verify("/siteverify", { secret: secretKey, response: solution })).json).toMatchObject({
      "error-codes": ["already-seen-response"],
    });
  });
});
