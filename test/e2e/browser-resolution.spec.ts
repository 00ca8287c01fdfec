import { expect, test } from '@playwright/test';
import { DEBIAN_CHROMIUM, resolveBrowser, SYSTEM_CHROMIUM_ARGS } from '../support/browser';

/** Which Chromium the e2e suites launch: decided in Node, no browser needed. */
test.describe('browser resolution', () => {
  const BUNDLED = '/root/.cache/ms-playwright/chromium-0000/chrome-linux64/chrome';
  const machine = (files: string[], env: NodeJS.ProcessEnv = {}) => ({
    env,
    exists: (path: string) => files.includes(path),
    playwrightExecutable: () => BUNDLED,
  });

  test("Playwright's own Chromium wins when installed", () => {
    expect(resolveBrowser(machine([BUNDLED, DEBIAN_CHROMIUM]))).toEqual({ source: 'playwright', launchOptions: {} });
  });

  test("Debian's chromium, with flags that keep it off the network, when Playwright has none", () => {
    const { source, launchOptions } = resolveBrowser(machine([DEBIAN_CHROMIUM]));
    expect(source).toBe('debian');
    expect(launchOptions.executablePath).toBe(DEBIAN_CHROMIUM);
    expect(launchOptions.args).toEqual(
      expect.arrayContaining(['--no-sandbox', '--disable-background-networking', '--disable-component-update']),
    );
  });

  test('SVC_CHROMIUM overrides both, and must exist', () => {
    const env = { SVC_CHROMIUM: '/opt/chrome/chrome' };
    expect(resolveBrowser(machine([BUNDLED, DEBIAN_CHROMIUM, '/opt/chrome/chrome'], env)).launchOptions).toEqual({
      executablePath: '/opt/chrome/chrome',
      args: SYSTEM_CHROMIUM_ARGS,
    });
    expect(() => resolveBrowser(machine([BUNDLED, DEBIAN_CHROMIUM], env))).toThrow(
      /SVC_CHROMIUM is set to "\/opt\/chrome\/chrome", but no file exists/,
    );
  });

  test('no browser at all: the error says how to get one', () => {
    let message = '';
    try {
      resolveBrowser(machine([]));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('apt-get install chromium');
    expect(message).toContain('npx playwright install chromium');
    expect(message).toContain('SVC_CHROMIUM');
  });
});
