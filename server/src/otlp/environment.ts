/** The environment a record belongs to, read from its resource: shared by issues, Web Vitals and alerting. */

/** Records whose resource names no environment. */
export const DEFAULT_ENV = 'production';
/** Records of a Playwright test run (`test.run.id` on the resource), whatever environment the app named. */
export const TEST_ENV = 'test';

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * A record of a Playwright test is test traffic even when the app named another environment: the SDK keeps an env the
 * app set (docs/sdk.md, "Under @svc/playwright"), but what a test run produced must never count as production. Else
 * the current semantic convention's name, then the older one.
 */
export function environmentOf(attributes: Readonly<Record<string, unknown>>): string {
  if (text(attributes['test.run.id'])) return TEST_ENV;
  return text(attributes['deployment.environment.name']) ?? text(attributes['deployment.environment']) ?? DEFAULT_ENV;
}
