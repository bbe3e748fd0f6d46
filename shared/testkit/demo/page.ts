import { createHash } from "node:crypto";

/** The demo site's pages. Plain strings: the point is the two attributes and the script tag. */
const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE_STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 36rem; margin: 2rem auto; padding: 0 1rem; }
  label { display: block; margin-top: .75rem; }
  input, textarea { width: 100%; font: inherit; }
  #status { color: #555; min-height: 1.5em; }
`;

const PAGE_SCRIPT = `
  // Events bubble from each form; one listener covers both.
  const status = document.getElementById("status");
  document.addEventListener("vendor-challenge-start", () => (status.textContent = "Checking your browser…"));
  document.addEventListener("vendor-challenge-success", () => (status.textContent = "Ready to send."));
  document.addEventListener("vendor-challenge-error", (event) => {
    status.textContent = "We could not check your browser (" + event.detail.reason + "). Please email us instead.";
  });
`;

export interface PageOptions {
  gatewayUrl: string;
  siteKey: string;
}

export const contactPage = ({ gatewayUrl, siteKey }: PageOptions): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sift demo: contact us</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${PAGE_STYLE}</style>
<script src="${escape(gatewayUrl)}/sift.js" defer></script>
</head>
<body>
<h1>Contact us</h1>
<form id="contact" method="post" action="/contact"
      data-sift-site-key="${escape(siteKey)}" data-sift-url="${escape(gatewayUrl)}">
  <label>Name <input name="name" required></label>
  <label>Email <input name="email" type="email" required></label>
  <label>Message <textarea name="message" rows="5" required></textarea></label>
  <p><button type="submit">Send</button></p>
</form>
<h2>Newsletter</h2>
<form id="newsletter" method="post" action="/contact"
      data-sift-site-key="${escape(siteKey)}" data-sift-url="${escape(gatewayUrl)}">
  <label>Email <input name="email" type="email" required></label>
  <p><button type="submit">Subscribe</button></p>
</form>
<p id="status"></p>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;

export const resultPage = (accepted: boolean, result: unknown): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sift demo: ${accepted ? "sent" : "refused"}</title></head>
<body>
<h1>${accepted ? "Thanks, your message was accepted" : "Your message was refused"}</h1>
<pre id="result">${escape(JSON.stringify(result, null, 2))}</pre>
<p><a href="/">Back</a></p>
</body></html>
`;

const sha256 = (text: string): string => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/**
 * The contact page's Content-Security-Policy: nothing but sift.js from the gateway, the page's
 * one inline script and style (by hash), POST /challenge to the gateway, the solver worker from
 * a blob:, and form posts to the page's own origin (docs/challenge.md's strict policy).
 */
export const contactPageCsp = (gatewayUrl: string): string => {
  const gateway = new URL(gatewayUrl).origin;
  return [
    "default-src 'none'",
    `script-src ${gateway} ${sha256(PAGE_SCRIPT)}`,
    `style-src ${sha256(PAGE_STYLE)}`,
    `connect-src ${gateway}`,
    "worker-src blob:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
};

/** The result page runs and loads nothing. */
export const RESULT_PAGE_CSP =
  "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
