import { parseArgs } from "node:util";
import { COMMANDS, NotFound, UsageError, type CliDeps, type Command } from "./commands.ts";
import { CONSOLE_COMMANDS } from "./console-commands.ts";
import { FEEDBACK_COMMANDS } from "./feedback-commands.ts";
import { MODEL_COMMANDS } from "./model-commands.ts";
import { OPERATION_COMMANDS } from "./operation-commands.ts";
import { TOKEN_COMMANDS } from "./token-commands.ts";
import { WEBHOOK_COMMANDS } from "./webhook-commands.ts";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const usageText = (commands: Record<string, Command>): string =>
  "usage: sift <command> [flags]\n" +
  Object.entries(commands)
    .map(([name, c]) =>
      [
        `  sift ${name}`,
        ...c.flags.map((f) => `--${f} …`),
        ...(c.booleans ?? []).map((f) => `[--${f}]`),
        ...(c.positional ? [c.positional.toUpperCase()] : []),
      ].join(" "),
    )
    .join("\n");

/** Runs one CLI invocation; never throws for a caller's mistake. */
export const runCli = async (argv: string[], deps: CliDeps): Promise<CliResult> => {
  const commands = {
    ...COMMANDS,
    ...OPERATION_COMMANDS,
    ...FEEDBACK_COMMANDS,
    ...CONSOLE_COMMANDS,
    ...TOKEN_COMMANDS,
    ...WEBHOOK_COMMANDS,
    ...MODEL_COMMANDS,
    ...deps.extra,
  };
  const name = argv.slice(0, 2).join(" ");
  const command = commands[name];
  if (!command)
    return {
      code: 2,
      stdout: "",
      stderr: `sift: unknown command ${JSON.stringify(name)}\n${usageText(commands)}\n`,
    };
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv.slice(2),
      options: Object.fromEntries([
        ...command.flags.map((f) => [f, { type: "string" as const }]),
        ...(command.booleans ?? []).map((f) => [f, { type: "boolean" as const }]),
      ]),
      strict: true,
      allowPositionals: command.positional !== undefined,
    }));
    if (positionals.length > 1)
      throw new Error(`one ${command.positional} expected, got ${positionals.length}`);
  } catch (err) {
    return { code: 2, stdout: "", stderr: `sift ${name}: ${(err as Error).message}\n` };
  }
  try {
    const flags = Object.fromEntries(
      Object.entries(values).map(([k, v]) => [
        k,
        typeof v === "string" ? v : v === true ? "true" : undefined,
      ]),
    );
    if (command.positional && positionals[0] !== undefined) flags[command.positional] = positionals[0];
    // A change is an operation of @sift/operations, which records its own audit entry.
    const output = await command.run(flags, deps);
    return { code: 0, stdout: `${JSON.stringify(output)}\n`, stderr: "" };
  } catch (err) {
    if (err instanceof UsageError) return { code: 2, stdout: "", stderr: `sift ${name}: ${err.message}\n` };
    if (err instanceof NotFound) return { code: 1, stdout: "", stderr: `sift ${name}: ${err.message}\n` };
    return { code: 1, stdout: "", stderr: `sift ${name}: ${(err as Error).message}\n` };
  }
};
