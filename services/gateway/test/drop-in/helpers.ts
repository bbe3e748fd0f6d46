import { lookup } from "node:dns/promises";

/**
 * What the drop-in tests share: samples, the 5 s bound on a report's effect, and the check that
 * `KEY.localhost` resolves to this machine by the system's own resolver (Debian's
 * libnss-myhostname, which .ci/run installs), as the clients that put the key in the host name
 * need, with no lookup or agent of the test's own.
 */

/** A comment the base model finds clean. */
export const CLEAN = {
  author: "Ann Example",
  email: "ann@example.org",
  content: "Thanks for the write-up on pruning apple trees, it helped me save my old Bramley this winter.",
};

/** A comment the base model finds spam. */
export const SPAM = {
  author: "Cheap SEO Services",
  email: "sales@seo-rank-boost.example",
  content:
    "Buy cheap viagra online!!! Best SEO backlinks, guaranteed first page on Google, casino bonus 500% click here http://bit.ly/xyz now",
};

/**
 * A campaign the base model finds harmless (a fake order question that fishes for replies), and
 * the same resent with other numbers, another name and a link: a site's report of the first
 * must turn the second into spam (classify's feedback.test.ts uses the same pair).
 */
export const CAMPAIGN = {
  author: "Linda",
  email: "linda.k@gmail.com",
  content:
    "Hi, I ordered the oak dining chairs last week (order 4471) and they have not arrived yet. Any news?",
};
export const RESEND = {
  author: "Maria",
  email: "maria.w@gmail.com",
  content:
    "Hi, I ordered the oak dining chairs last week (order 9012) and they have not arrived yet. Any news? " +
    "https://track.example/parcel?id=77",
};

/** Polls until `check` holds, for at most five seconds (DESIGN.md: a report's effect within 5 s). */
export const within5s = async (check: () => Promise<boolean>): Promise<number> => {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > 5_000) throw new Error("no effect within 5 s");
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
};

/**
 * Whether `KEY.localhost` resolves to this machine. Off CI a machine without it skips the two
 * host-name clients with a line saying what to install; on CI (`CI` set, as .ci/run does, which
 * installs it) they never skip, so a missing module fails them there.
 */
export const localhostSubdomains = async (): Promise<boolean> => {
  const found = await lookup("sk_probe-Key.localhost", { all: true }).catch(() => []);
  const ok = found.some((a) => a.address === "127.0.0.1" || a.address === "::1");
  if (!ok && !process.env["CI"]) {
    console.warn(
      "sift: KEY.localhost does not resolve; apt-get install libnss-myhostname runs the Akismet host-name clients' tests",
    );
  }
  return ok || Boolean(process.env["CI"]);
};
