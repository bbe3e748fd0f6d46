import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Debian's Apertium, the rule-based machine translator the training data's translations come
 * from (issue 51). English reaches Spanish directly; Portuguese, Italian, Catalan, Romanian and
 * Galician are reached from the Spanish, as the pairs Debian ships all start from Spanish.
 */

/** The languages the training data is translated into. */
export const TARGETS = ["es", "pt", "it", "ca", "ro", "gl"] as const;
export type Target = (typeof TARGETS)[number];

/** A translation step: an Apertium mode and the Debian package that ships it. */
export interface Step {
  mode: string;
  pkg: string;
}

/** English to Spanish: every target's first step. */
export const FIRST: Step = { mode: "eng-spa", pkg: "apertium-eng-spa" };

/**
 * From the Spanish to each target. Portuguese alternates between the pair's European and
 * Brazilian modes (both are written on forms), by a hash of the message.
 */
export const FROM_SPANISH: Record<Exclude<Target, "es">, readonly Step[]> = {
  pt: [
    { mode: "es-pt", pkg: "apertium-es-pt" },
    { mode: "es-pt_BR", pkg: "apertium-es-pt" },
  ],
  it: [{ mode: "spa-ita", pkg: "apertium-spa-ita" }],
  ca: [{ mode: "spa-cat", pkg: "apertium-spa-cat" }],
  ro: [{ mode: "es-ro", pkg: "apertium-es-ro" }],
  gl: [{ mode: "es-gl", pkg: "apertium-es-gl" }],
};

export const PACKAGES = [
  "apertium",
  ...new Set([FIRST, ...Object.values(FROM_SPANISH).flat()].map((s) => s.pkg)),
];

/** The apt-get line that installs every package the step needs. */
export const INSTALL_HINT = `apt-get install -y ${PACKAGES.join(" ")}`;

/**
 * apertium-es-ro 0.7.5 builds and ships the Spanish-to-Romanian files but marks the mode
 * `install="no"` (so `apertium -l` does not list it): the mode is written here, from the
 * package's own modes.xml pipeline, into a folder of the cache that `apertium -d` reads.
 */
const RO_DIR = "/usr/share/apertium/apertium-es-ro";
const roPipeline = (): string => {
  const f = (name: string) => `'${RO_DIR}/${name}'`;
  return [
    `lt-proc ${f("es-ro.automorf.bin")}`,
    `apertium-tagger -g $2 ${f("es-ro.prob")}`,
    "apertium-pretransfer",
    `apertium-transfer ${f("apertium-es-ro.es-ro.t1x")} ${f("es-ro.t1x.bin")} ${f("es-ro.autobil.bin")}`,
    `apertium-interchunk ${f("apertium-es-ro.es-ro.t2x")} ${f("es-ro.t2x.bin")}`,
    `apertium-postchunk ${f("apertium-es-ro.es-ro.t3x")} ${f("es-ro.t3x.bin")}`,
    `lt-proc $1 ${f("es-ro.autogen.bin")}`,
    `lt-proc -p ${f("es-ro.autopgen.bin")}`,
  ].join(" | ");
};

/**
 * apertium-es-ro 0.7.5's generator writes the preposition "în" as both its forms, the elided one
 * and the full one, "-n/în" (also "-n/În", "-N/ÎN"), wherever Spanish has "en": two in five of the
 * Romanian translations carried it, in both labels, and no Romanian writer does. Left so, the
 * model learns "-n/în" as Romanian and never sees the "în" every real Romanian message holds. The
 * full form is kept (the elided one needs the word before it, which the generator did not pick).
 * The cache keeps Apertium's own output; the fix is applied as a translation is read, from the
 * next model's recipe on (translations.ts).
 */
export const fixRomanian = (line: string): string => line.replace(/-[nN]\/(în|În|ÎN)/g, "$1");

export class ApertiumMissing extends Error {}

/** A ready translator: the modes it can run and where the Romanian mode was written. */
export interface Apertium {
  /** Package name → installed version, for the card and the cache's manifest. */
  versions: Record<string, string>;
  translate(step: Step, lines: readonly string[]): Promise<string[]>;
}

const listedModes = (): Set<string> => {
  try {
    return new Set(execFileSync("apertium", ["-l"], { encoding: "utf8" }).split(/\s+/).filter(Boolean));
  } catch {
    return new Set();
  }
};

const versionOf = (pkg: string): string | undefined => {
  try {
    return execFileSync("dpkg-query", ["-W", "-f=${Version}", pkg], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
};

/**
 * Checks every mode the step needs and returns a translator, or throws ApertiumMissing naming
 * the packages to install. `modesDir` is where the Romanian mode is written.
 */
export const openApertium = (modesDir: string): Apertium => {
  const listed = listedModes();
  const missing = new Set<string>();
  if (listed.size === 0) missing.add("apertium");
  for (const step of [FIRST, ...Object.values(FROM_SPANISH).flat()]) {
    if (step.mode === "es-ro" ? !existsSync(join(RO_DIR, "es-ro.automorf.bin")) : !listed.has(step.mode))
      missing.add(step.pkg);
  }
  if (missing.size > 0)
    throw new ApertiumMissing(
      `Apertium is missing ${[...missing].join(", ")}: the translated training families need Debian's packages ${PACKAGES.join(", ")} (${INSTALL_HINT})`,
    );
  mkdirSync(join(modesDir, "modes"), { recursive: true });
  writeFileSync(join(modesDir, "modes", "es-ro.mode"), `${roPipeline()}\n`);
  const versions = Object.fromEntries(PACKAGES.map((p) => [p, versionOf(p) ?? "unknown"]));
  return {
    versions,
    translate: (step, lines) =>
      run(step.mode === "es-ro" ? ["-u", "-d", modesDir, step.mode] : ["-u", step.mode], lines),
  };
};

/** Lines at a time per process: Apertium reads its input whole before the last line comes back. */
const CHUNK = 2000;

/**
 * One line in, one line out. A line must hold no line break (the caller flattens them); an
 * answer with another number of lines is an error rather than a silent shift of every
 * translation after it.
 */
const run = async (args: readonly string[], lines: readonly string[]): Promise<string[]> => {
  const out: string[] = [];
  for (let at = 0; at < lines.length; at += CHUNK) {
    const chunk = lines.slice(at, at + CHUNK);
    const translated = await runOnce(args, chunk);
    if (translated.length !== chunk.length)
      throw new Error(`apertium ${args.join(" ")} answered ${translated.length} lines for ${chunk.length}`);
    out.push(...translated);
  }
  return out;
};

/**
 * Through files, not pipes: the apertium script hands its input to the deformatter by name when
 * standard input is not a terminal or a file, and a Node child's standard input is a socket, which
 * it refuses ("USAGE: apertium-destxt").
 */
const runOnce = async (args: readonly string[], lines: readonly string[]): Promise<string[]> => {
  const dir = await mkdtemp(join(tmpdir(), "sift-apertium-"));
  try {
    const input = join(dir, "in.txt");
    const output = join(dir, "out.txt");
    await writeFile(input, `${lines.join("\n")}\n`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn("apertium", [...args, input, output], { stdio: ["ignore", "ignore", "pipe"] });
      const stderr: Buffer[] = [];
      child.stderr.on("data", (b: Buffer) => stderr.push(b));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0
          ? resolve()
          : reject(
              new Error(
                `apertium ${args.join(" ")} exited ${code}: ${Buffer.concat(stderr).toString().trim()}`,
              ),
            ),
      );
    });
    return (await readFile(output, "utf8")).replace(/\n$/, "").split("\n");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
