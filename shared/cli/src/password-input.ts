import { createInterface } from "node:readline";

/**
 * A password for `sift console user add`: the first line of standard input when it is piped
 * (`printf '%s\n' "$PASSWORD" | sift console user add …`), or typed at a prompt without echo on
 * a terminal. Never a command-line argument, which other users of the machine can read.
 */
export const readPassword = async (): Promise<string> => {
  const input = process.stdin;
  if (!input.isTTY) {
    const lines = createInterface({ input });
    for await (const line of lines) {
      lines.close();
      return line;
    }
    return "";
  }
  process.stderr.write("Password: ");
  input.setRawMode(true);
  input.resume();
  let typed = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return done(typed);
        if (char === "\u0003") return done(null);
        if (char === "\u007f") typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    const done = (value: string | null) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write("\n");
      if (value === null) reject(new Error("cancelled"));
      else resolve(value);
    };
    input.on("data", onData);
  });
};
