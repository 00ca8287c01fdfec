/**
 * What the sessions page shows of a browser's `user_agent.original`: the browser and its major version, the operating
 * system and the kind of device. A few ordered token rules rather than a parsing library (ua-parser-js and the like
 * carry hundreds of rules and tens of KB for models and engines nobody filters by here): the console needs five browser
 * families, six systems and three device kinds, and these tokens have been stable in every browser's UA for years.
 * Anything else is `Other`, never an error.
 */
export interface ClientInfo {
  browser: string;
  /** Major version of the browser, as text; null when the UA names none. */
  browserVersion: string | null;
  os: string;
  device: DeviceType;
}

export type DeviceType = 'desktop' | 'mobile' | 'tablet';

/** UA strings longer than this are not parsed (real ones are a few hundred characters). */
const MAX_UA_CHARS = 1024;

/**
 * Browser families, first match wins: Chromium-based browsers also say `Chrome/` and every WebKit one says `Safari/`,
 * so the specific names come before Chrome, and Chrome before Safari. The version is the number after the matched token.
 */
const BROWSERS: ReadonlyArray<[name: string, token: RegExp]> = [
  ['Edge', /\b(?:Edg|EdgA|EdgiOS|Edge)\/(\d+)/],
  ['Opera', /\b(?:OPR|OPiOS|Opera)\/(\d+)/],
  ['Samsung Internet', /\bSamsungBrowser\/(\d+)/],
  ['Firefox', /\b(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /\b(?:HeadlessChrome|Chrome|CriOS|Chromium)\/(\d+)/],
  // Safari's own version is in `Version/`; WebKit views without it (in-app browsers) are still Safari, version unknown.
  ['Safari', /\bVersion\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\/|\bSafari\//],
];

/** Systems, first match wins: iOS UAs say "like Mac OS X", Android and ChromeOS ones say Linux. */
const SYSTEMS: ReadonlyArray<[name: string, token: RegExp]> = [
  ['Windows', /\bWindows\b/],
  ['iOS', /\b(?:iPhone|iPad|iPod)\b/],
  ['Android', /\bAndroid\b/],
  ['ChromeOS', /\bCrOS\b/],
  ['macOS', /\bMac OS X\b|\bMacintosh\b/],
  ['Linux', /\bLinux\b|\bX11\b/],
];

/**
 * Tablets: iPads, Android without `Mobile` (Google's rule for Android tablets), and UAs that say so. Phones: `Mobi`
 * (Mozilla's advice for detecting mobile), iPhones and iPods. iPadOS 13+ in its default desktop mode sends a Mac UA and
 * counts as desktop: nothing in the string tells them apart.
 */
function deviceOf(ua: string, os: string): DeviceType {
  if (/\biPad\b|\bTablet\b/.test(ua) || (os === 'Android' && !/\bMobile\b/.test(ua))) return 'tablet';
  if (/Mobi|\biPhone\b|\biPod\b/.test(ua)) return 'mobile';
  return 'desktop';
}

/** The client a UA string names; null for an empty or oversized one. */
export function parseUserAgent(ua: string): ClientInfo | null {
  if (ua.trim() === '' || ua.length > MAX_UA_CHARS) return null;
  let browser = 'Other';
  let browserVersion: string | null = null;
  for (const [name, token] of BROWSERS) {
    const m = token.exec(ua);
    if (!m) continue;
    browser = name;
    browserVersion = m[1] ?? null;
    break;
  }
  const os = SYSTEMS.find(([, token]) => token.test(ua))?.[0] ?? 'Other';
  return { browser, browserVersion, os, device: deviceOf(ua, os) };
}
