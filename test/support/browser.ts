import { existsSync } from 'node:fs';
import { chromium, type LaunchOptions } from '@playwright/test';

/** Where Debian's `chromium` package puts the browser. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a system Chromium on a headless, sandboxless CI machine without internet. Without the background-networking
 * flags Chromium keeps trying to reach Google services (component updates, sync, QUIC probes) on a closed network.
 */
export const SYSTEM_CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserResolution {
  /** Launch options to hand to Playwright (`use.launchOptions` or `chromium.launch`). */
  launchOptions: LaunchOptions;
  /** Which browser was chosen, for logs. */
  source: 'playwright' | 'SVC_CHROMIUM' | 'debian';
}

const HOW_TO_INSTALL = [
  'No Chromium found for the end-to-end tests. Do one of:',
  '  - apt-get install chromium                  (Debian/Ubuntu; provides /usr/bin/chromium)',
  "  - npx playwright install chromium           (Playwright's own build; needs internet)",
  '  - set SVC_CHROMIUM=/path/to/chrome-or-chromium',
].join('\n');

function playwrightChromium(): string | undefined {
  try {
    return chromium.executablePath() || undefined;
  } catch {
    return undefined;
  }
}

/** What `resolveBrowser` looks at; injectable so the choice itself can be tested without touching the machine. */
export interface BrowserProbe {
  env: NodeJS.ProcessEnv;
  exists: (path: string) => boolean;
  /** Where Playwright's own Chromium would be (it may not be installed). */
  playwrightExecutable: () => string | undefined;
}

const SYSTEM_PROBE: BrowserProbe = { env: process.env, exists: existsSync, playwrightExecutable: playwrightChromium };

/**
 * Chromium for the e2e suites. `SVC_CHROMIUM` wins when set (and must exist); else Playwright's bundled Chromium when
 * installed; else Debian's `/usr/bin/chromium` with flags fit for CI. Throws with install instructions when none exists.
 */
export function resolveBrowser(probe: Partial<BrowserProbe> = {}): BrowserResolution {
  const { env, exists, playwrightExecutable } = { ...SYSTEM_PROBE, ...probe };
  const override = env.SVC_CHROMIUM?.trim();
  if (override) {
    if (!exists(override))
      throw new Error(`SVC_CHROMIUM is set to "${override}", but no file exists there.\n${HOW_TO_INSTALL}`);
    return { source: 'SVC_CHROMIUM', launchOptions: { executablePath: override, args: SYSTEM_CHROMIUM_ARGS } };
  }
  const bundled = playwrightExecutable();
  if (bundled && exists(bundled)) return { source: 'playwright', launchOptions: {} };
  if (exists(DEBIAN_CHROMIUM))
    return { source: 'debian', launchOptions: { executablePath: DEBIAN_CHROMIUM, args: SYSTEM_CHROMIUM_ARGS } };
  throw new Error(HOW_TO_INSTALL);
}

/** Just the launch options for this machine (see `resolveBrowser`). */
export function browserLaunchOptions(): LaunchOptions {
  return resolveBrowser().launchOptions;
}
