/** Browsers by the token that names them, most specific first (Edge and Opera also say Chrome, Chrome also says Safari). */
const BROWSERS: Array<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/\bOPR\/(\d+)/, "Opera"],
  [/\bFirefox\/(\d+)/, "Firefox"],
  [/\bFxiOS\/(\d+)/, "Firefox"],
  [/\bCriOS\/(\d+)/, "Chrome"],
  [/\bHeadlessChrome\/(\d+)/, "Headless Chrome"],
  [/\bChrom(?:e|ium)\/(\d+)/, "Chrome"],
  [/\bVersion\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
  [/\bcurl\/(\d+)/, "curl"],
  [/\bnode(?:-fetch)?\b/i, "Node.js"],
];

const SYSTEMS: Array<[RegExp, string]> = [
  [/\bAndroid\b/, "Android"],
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

/** How much of an unrecognised User-Agent the list shows. */
const SHOWN = 60;

/**
 * A short name for a User-Agent header ("Firefox 132 on Linux"), for the list of one's
 * sessions; one it does not recognise is shown cut to SHOWN characters (as text: the page escapes it).
 */
export const summarizeUserAgent = (userAgent: string | undefined): string => {
  const ua = (userAgent ?? "").trim();
  if (!ua) return "Unknown browser";
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua));
  const system = SYSTEMS.find(([pattern]) => pattern.test(ua));
  if (!browser) return ua.length > SHOWN ? `${ua.slice(0, SHOWN)}…` : ua;
  const version = browser[0].exec(ua)?.[1];
  return `${browser[1]}${version ? ` ${version}` : ""}${system ? ` on ${system[1]}` : ""}`;
};
