import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort, stopChild } from "@sift/testkit";

/**
 * A real WordPress for the suite: Debian's `wordpress` package (6.1, with its Akismet 5.0.2) in a
 * folder of the test's own (core files hard-linked, wp-content copied, a wp-config.php of its
 * own), MariaDB on a free port with its own data folder, and `php -S` serving it. Installed
 * through wp-admin/install.php as a person would; `php()` runs PHP inside it for the checks.
 */
const run = promisify(execFile);

export const WORDPRESS_DIR = "/usr/share/wordpress";
const NEEDS = [
  ["/usr/bin/php", "php-cli"],
  [`${WORDPRESS_DIR}/wp-login.php`, "wordpress"],
  [`${WORDPRESS_DIR}/wp-content/themes/twentytwentythree/style.css`, "wordpress-theme-twentytwentythree"],
  ["/usr/sbin/mariadbd", "mariadb-server"],
  ["/usr/bin/mariadb-install-db", "mariadb-server"],
] as const;

/** What is missing to run the suite (a line to print), or null. */
export const wordpressMissing = async (): Promise<string | null> => {
  const missing = new Set<string>();
  for (const [path, pkg] of NEEDS) {
    try {
      accessSync(path, constants.R_OK);
    } catch {
      missing.add(pkg);
    }
  }
  if (!missing.has("php-cli")) {
    const modules = await run("php", ["-m"]).then(
      (r) => r.stdout,
      () => "",
    );
    if (!/^mysqli$/m.test(modules)) missing.add("php-mysql");
  }
  if (missing.size === 0) return null;
  return `sift: the WordPress suite is skipped: apt-get install -y ${[...missing].join(" ")} runs it`;
};

export const ADMIN = { user: "admin", password: "correct horse battery staple", email: "admin@example.org" };

export interface WordPress {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  /** The install's folder (wp-content/, wp-config-extra.php). */
  dir: string;
  /** Runs PHP inside WordPress (after wp-load.php); what the code returns, JSON-decoded. */
  php<T = unknown>(code: string): Promise<T>;
  /** Adds PHP to wp-config.php (before wp-settings.php is loaded), replacing the last addition. */
  configure(php: string): void;
  /**
   * Warnings and errors PHP logged from plugins (wp-content/): WordPress's own failures to reach
   * wordpress.org, which nothing here can reach, are left out.
   */
  problems(): Promise<string[]>;
  stop(): Promise<void>;
}

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start in ${timeoutMs} ms`);
};

/** SIGTERM to a detached child's whole process group; resolves once the leader has exited. */
const stopGroup = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      resolve();
    }
  });

const startMariaDb = async (dir: string): Promise<{ port: number; child: ChildProcess }> => {
  const data = join(dir, "db");
  await run("mariadb-install-db", [
    "--no-defaults",
    `--datadir=${data}`,
    "--user=root",
    "--skip-test-db",
    "--auth-root-authentication-method=normal",
  ]);
  const port = await freePort();
  const child = spawn(
    "mariadbd",
    [
      "--no-defaults",
      `--datadir=${data}`,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      `--socket=${join(dir, "mariadb.sock")}`,
      `--pid-file=${join(dir, "mariadb.pid")}`,
      "--user=root",
      // No accounts to set up: the server listens on loopback only and lives as long as the suite.
      "--skip-grant-tables",
      "--skip-log-bin",
      "--skip-name-resolve",
      "--innodb-buffer-pool-size=32M",
    ],
    { stdio: "ignore" },
  );
  const sql = (statement: string) =>
    run("mariadb", ["--protocol=tcp", "-h127.0.0.1", `-P${port}`, "-uroot", "-e", statement]);
  await waitFor("MariaDB", async () => (await sql("CREATE DATABASE IF NOT EXISTS wordpress"), true));
  return { port, child };
};

/** Core hard-linked (never written to), wp-content copied (plugins are installed into it). */
const hardLinkTree = async (target: string): Promise<void> => {
  mkdirSync(target);
  for (const name of readdirSync(WORDPRESS_DIR)) {
    if (name === "wp-config.php" || name === ".htaccess" || name === "wp-content") continue;
    // Hard links cost nothing and keep __FILE__ inside the target (a symlink would resolve to
    // /usr/share/wordpress, whose wp-config.php is Debian's).
    await run("cp", ["-al", join(WORDPRESS_DIR, name), join(target, name)]);
  }
  cpSync(join(WORDPRESS_DIR, "wp-content"), join(target, "wp-content"), { recursive: true });
};

const wpConfig = (dbPort: number, dir: string): string => {
  const salt = () => randomBytes(32).toString("hex");
  const keys = ["AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT"]
    .concat(["LOGGED_IN_SALT", "NONCE_SALT"])
    .map((name) => `define( '${name}', '${salt()}' );`)
    .join("\n");
  return `<?php
define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '127.0.0.1:${dbPort}' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
${keys}
$table_prefix = 'wp_';
define( 'WP_DEBUG', true );
define( 'WP_DEBUG_LOG', '${join(dir, "php-errors.log")}' );
define( 'WP_DEBUG_DISPLAY', false );
// No cron spawned on page loads, no calls to wordpress.org (nothing but loopback is reachable).
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'FS_METHOD', 'direct' );
if ( file_exists( __DIR__ . '/wp-config-extra.php' ) ) {
	require __DIR__ . '/wp-config-extra.php';
}
if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
`;
};

/** Loads WordPress in the CLI as a request to the site would, then runs argv[3]'s PHP. */
const EVAL_PHP = `<?php
$_SERVER['HTTP_HOST'] = $argv[2];
$_SERVER['REQUEST_METHOD'] = 'GET';
$_SERVER['REQUEST_URI'] = '/';
define( 'WP_USE_THEMES', false );
require $argv[1] . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
$sift_result = ( function () use ( $argv ) {
	return eval( $argv[3] );
} )();
echo "\\n--sift-result--\\n" . wp_json_encode( $sift_result );
`;

/**
 * Test-only settings, as a must-use plugin: every comment of the suite comes from 127.0.0.1, so
 * WordPress's flood check (one comment per 15 s per address) would refuse all but the first.
 */
const TEST_MU_PLUGIN = `<?php
add_filter( 'wp_is_comment_flood', '__return_false', 99 );
`;

export const startWordPress = async (): Promise<WordPress> => {
  const dir = mkdtempSync(join(tmpdir(), "sift-wordpress-"));
  const children: ChildProcess[] = [];
  const groups: ChildProcess[] = [];
  const stopAll = async () => {
    for (const group of groups) await stopGroup(group);
    for (const child of children.reverse()) await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const wp = join(dir, "wp");
    const [db] = await Promise.all([startMariaDb(dir), hardLinkTree(wp)]);
    children.push(db.child);
    writeFileSync(join(wp, "wp-config.php"), wpConfig(db.port, dir));
    mkdirSync(join(wp, "wp-content", "mu-plugins"), { recursive: true });
    writeFileSync(join(wp, "wp-content", "mu-plugins", "sift-test-settings.php"), TEST_MU_PLUGIN);
    writeFileSync(join(dir, "eval.php"), EVAL_PHP);

    const port = await freePort();
    const host = `127.0.0.1:${port}`;
    const url = `http://${host}`;
    // Several workers: WordPress's pages call Sift while the browser fetches their assets. The
    // workers are forked children the parent does not stop on SIGTERM: a process group of its
    // own, stopped as one (stopGroup).
    const server = spawn("php", ["-S", host, "-t", wp], {
      stdio: "ignore",
      detached: true,
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: "4" },
    });
    groups.push(server);
    await waitFor("php -S", async () => (await fetch(`${url}/wp-login.php`)).status > 0);

    const installed = await fetch(`${url}/wp-admin/install.php?step=2`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        weblog_title: "Sift test site",
        user_name: ADMIN.user,
        admin_password: ADMIN.password,
        admin_password2: ADMIN.password,
        pw_weak: "1",
        admin_email: ADMIN.email,
        blog_public: "0",
        language: "",
      }).toString(),
    });
    const page = await installed.text();
    if (!page.includes("Success!")) throw new Error(`WordPress did not install: ${page.slice(0, 500)}`);

    const php = async <T>(code: string): Promise<T> => {
      const { stdout } = await run("php", [join(dir, "eval.php"), wp, host, code], { maxBuffer: 1 << 24 });
      const marker = stdout.lastIndexOf("--sift-result--\n");
      if (marker < 0) throw new Error(`PHP gave no result: ${stdout.slice(0, 500)}`);
      return JSON.parse(stdout.slice(marker + "--sift-result--\n".length)) as T;
    };
    // Comments from new authors published unless Sift says otherwise; registration open.
    await php(
      "update_option( 'comment_previously_approved', 0 ); update_option( 'users_can_register', 1 ); return true;",
    );
    return {
      url,
      dir: wp,
      php,
      configure: (extra) => writeFileSync(join(wp, "wp-config-extra.php"), `<?php\n${extra}\n`),
      problems: async () => {
        const log = await readFile(join(dir, "php-errors.log"), "utf8").catch(() => "");
        return log
          .split("\n")
          .filter((line) => /PHP (Warning|Notice|Fatal|Parse)/.test(line) && line.includes("/wp-content/"));
      },
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
};
