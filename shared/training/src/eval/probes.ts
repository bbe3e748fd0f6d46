import type { Example } from "../data/examples.ts";
import { featurize } from "@sift/model";
import { SPAM_THRESHOLD } from "../train/calibrate.ts";
import { scoreOf, type TrainedModel } from "../train/pipeline.ts";

/** The contact form each probe starts from: an ordinary name and address around a ham text. */
interface ProbeForm {
  name: string;
  email: string;
  message: string;
}

/**
 * Shortcut probes: take held-out ham, add one thing a data-set shortcut or a form signal would
 * react to, and count how often the verdict flips to spam. Each of these also occurs in real
 * enquiries, so a robust model should barely move. The first five are the v1 probes; the rest
 * are one per new form signal that could become a shortcut.
 */
export const PROBES: Array<[string, (form: ProbeForm) => ProbeForm]> = [
  ["a link appended", (f) => ({ ...f, message: `${f.message} https://www.example.com/about` })],
  ["a phone number appended", (f) => ({ ...f, message: `${f.message} call me on 0176 23456789` })],
  ["upper-cased (shouting)", (f) => ({ ...f, message: f.message.toUpperCase() })],
  ["an @mention prepended", (f) => ({ ...f, message: `@maria_k ${f.message}` })],
  ["text repeated three times", (f) => ({ ...f, message: `${f.message} ${f.message} ${f.message}` })],
  ["a bare domain appended", (f) => ({ ...f, message: `${f.message} (see keller-bakery.de)` })],
  ["a URL-shortener link appended", (f) => ({ ...f, message: `${f.message} https://bit.ly/3kXw9pQ` })],
  ["a price appended", (f) => ({ ...f, message: `${f.message} My budget is about $300.` })],
  [
    "praise and a link prepended",
    (f) => ({ ...f, message: `Great article! https://www.example.com/ ${f.message}` }),
  ],
  [
    "a helpline phrase appended",
    (f) => ({ ...f, message: `${f.message} I called your customer service twice.` }),
  ],
  [
    '"your website" and "quick question"',
    (f) => ({ ...f, message: `Quick question about your website: ${f.message}` }),
  ],
  ["a company as the name", (f) => ({ ...f, name: "Keller Bakery Services Ltd" })],
  ["an address unrelated to the name", (f) => ({ ...f, email: "info.office2024@gmail.com" })],
  ["a throw-away address", (f) => ({ ...f, email: "alex.morgan@mailinator.com" })],
];

const fieldsOf = (f: ProbeForm): Array<[string, string]> => [
  ["name", f.name],
  ["email", f.email],
  ["message", f.message],
];

export interface ProbeResult {
  name: string;
  n: number;
  flipped: number;
  meanDelta: number;
}

export const probeShortcuts = (model: TrainedModel, ham: readonly Example[]): ProbeResult[] =>
  PROBES.map(([name, change]) => {
    let flipped = 0;
    let delta = 0;
    for (const e of ham) {
      const form = { name: "Alex Morgan", email: "alex.morgan@gmail.com", message: e.text! };
      const before = scoreOf(model, { features: featurize(fieldsOf(form)) });
      const after = scoreOf(model, { features: featurize(fieldsOf(change(form))) });
      delta += after - before;
      if (before < SPAM_THRESHOLD && after >= SPAM_THRESHOLD) flipped++;
    }
    return { name, n: ham.length, flipped, meanDelta: delta / Math.max(ham.length, 1) };
  });
