import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, deflateRawSync } from "node:zlib";

/**
 * `pnpm wordpress:zip`: shared/wordpress/plugin/ as dist/sift.zip with one top folder, `sift/`,
 * which is what WordPress's "Upload Plugin" unpacks into wp-content/plugins/. Written here with
 * node:zlib (a zip is deflate streams with two small headers each) rather than with a zip tool a
 * machine may lack. Entries are sorted and dated 1980-01-01, so the same sources give the same bytes.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "plugin");
const target = join(root, "dist", "sift.zip");
const TOP = "sift";

const filesUnder = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });

/** DOS date and time of 1980-01-01 00:00, the format's earliest. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};

export const buildZip = (): Buffer => {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const path of filesUnder(source)) {
    const name = Buffer.from(`${TOP}/${relative(source, path).split(sep).join("/")}`);
    const data = readFileSync(path);
    const packed = deflateRawSync(data, { level: 9 });
    const crc = crc32(data);
    // version 20, no flags, method 8 (deflate)
    const common = Buffer.concat([
      u16(20),
      u16(0),
      u16(8),
      u16(DOS_TIME),
      u16(DOS_DATE),
      u32(crc),
      u32(packed.length),
      u32(data.length),
      u16(name.length),
      u16(0),
    ]);
    const local = Buffer.concat([u32(0x04034b50), common, name, packed]);
    centrals.push(
      Buffer.concat([
        u32(0x02014b50),
        u16(20), // made by: MS-DOS attributes, spec 2.0
        common,
        u16(0), // comment length
        u16(0), // disk
        u16(0), // internal attributes
        u32(0), // external attributes
        u32(offset),
        name,
      ]),
    );
    locals.push(local);
    offset += local.length;
  }
  const central = Buffer.concat(centrals);
  const end = Buffer.concat([
    u32(0x06054b50),
    u16(0),
    u16(0),
    u16(centrals.length),
    u16(centrals.length),
    u32(central.length),
    u32(offset),
    u16(0),
  ]);
  return Buffer.concat([...locals, central, end]);
};

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, buildZip());
  console.log(`wrote ${relative(process.cwd(), target)}`);
}
