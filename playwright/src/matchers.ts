import { test, type ExpectMatcherState } from '@playwright/test';
import { SvcUnreachable } from './api';
import { LINK_ANNOTATION } from './links';
import { errorMessage, type LogRecord } from './records';
import { Svc } from './svc';

/** Errors a test expects: a string matches as a substring of the message, a RegExp is tested against it. */
export interface NoErrorsOptions {
  allow?: ReadonlyArray<string | RegExp>;
}

const allowed = (log: LogRecord, allow: ReadonlyArray<string | RegExp>): boolean => {
  const message = errorMessage(log);
  return allow.some((pattern) => (typeof pattern === 'string' ? message.includes(pattern) : pattern.test(message)));
};

/**
 * `await expect(svc).toHaveNoErrors({ allow })`: passes when the SDK captured no error in this test attempt (after a
 * flush) other than the allowed ones. The failure lists each error with its symbolicated stack and replay link.
 */
async function toHaveNoErrors(this: ExpectMatcherState, received: unknown, options: NoErrorsOptions = {}) {
  const name = 'toHaveNoErrors';
  if (!(received instanceof Svc)) {
    return { pass: false, name, message: () => `${name}: expected the \`svc\` fixture, got ${typeof received}` };
  }
  let captured;
  try {
    captured = await received.errors();
  } catch (error) {
    if (!(error instanceof SvcUnreachable)) throw error;
    // svc down is not the app's failure: the check is skipped, and the report says so.
    test.info().annotations.push({ type: LINK_ANNOTATION, description: `errors not checked: ${error.message}` });
    return {
      pass: !this.isNot,
      name,
      message: () => `${name}: svc unreachable, errors not checked (${error.message})`,
    };
  }
  const errors = captured.filter((e) => !allowed(e, options.allow ?? []));
  const pass = errors.length === 0;
  const details = pass ? '' : await received.describeErrors(errors);
  const hint = this.utils.matcherHint(name, 'svc', '', { isNot: this.isNot });
  const message = pass
    ? () => `${hint}\n\nExpected errors, but svc captured none in this test.`
    : () =>
        `${hint}\n\n${errors.length} error${errors.length === 1 ? '' : 's'} captured by svc in this test:\n\n${details}`;
  return { pass, name, message, expected: 0, actual: errors.length };
}

export const svcMatchers = { toHaveNoErrors };
