/**
 * @svc/playwright: Playwright tests observed by svc. `test` hands each test's context to the page's SDK and flushes
 * it when the test ends; `expect` adds `toHaveNoErrors`; `withSvc` adds the same to another `test`.
 */
import { expect as baseExpect, test as baseTest } from '@playwright/test';
import { withSvc } from './fixture';
import { svcMatchers } from './matchers';

export { withSvc, type SvcFixtures, type SvcTestOptions } from './fixture';
export { LINK_ANNOTATION } from './links';
export { SvcUnreachable } from './api';
export { Svc } from './svc';
export type { SvcOptions } from './config';
export { svcMatchers, type NoErrorsOptions } from './matchers';
export type { FlushOutcome } from './deliver';
export type { TestHandoff } from './handoff';
export type { FrameRecord, LogRecord, MetricPointRecord, SessionRecord, SpanRecord } from './records';

/** Playwright's `test` with the svc fixtures. */
export const test = withSvc(baseTest);

/** Playwright's `expect` with `toHaveNoErrors`. */
export const expect = baseExpect.extend(svcMatchers);
