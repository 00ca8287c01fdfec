import type {
  BrowserContext,
  PlaywrightTestArgs,
  PlaywrightTestOptions,
  PlaywrightWorkerArgs,
  PlaywrightWorkerOptions,
  TestInfo,
  TestType,
} from '@playwright/test';
import { resolveOptions, type SvcOptions } from './config';
import { handoffScript, testHandoff } from './handoff';
import { loadInjectScript } from './inject';
import { LINK_ANNOTATION } from './links';
import { ContextPages } from './pages';
import { probeOnce } from './reachability';
import { ensureRunId } from './run-id';
import { Svc } from './svc';

/** The fixtures `withSvc` adds: `svc` (the option in playwright.config's `use`, the {@link Svc} reader in a test). */
export interface SvcFixtures {
  svc: Svc;
}

/** What `use` accepts for svc in playwright.config: `defineConfig<SvcTestOptions>({ use: { svc: {...} } })`. */
export interface SvcTestOptions {
  svc: SvcOptions;
}

/** Never lets svc fail or slow down a test beyond its own bound: svc being down is not the app's failure. */
async function quietly<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch {
    return undefined;
  }
}

/** Before the test: the handoff, and the SDK itself when `inject` asks for it (after the handoff, so it sees it). */
async function prepare(
  context: BrowserContext,
  options: SvcOptions,
  testInfo: TestInfo,
): Promise<{ svc: Svc; pages: ContextPages }> {
  const resolved = resolveOptions(options);
  const handoff = testHandoff(testInfo, ensureRunId());
  await context.addInitScript({ content: handoffScript(handoff) });
  if (resolved.inject !== false) await context.addInitScript({ content: await loadInjectScript(resolved) });
  const pages = new ContextPages(context, resolved.flushTimeoutMs, probeOnce(resolved.url));
  return {
    svc: new Svc(resolved, { runId: handoff.runId, testId: handoff.testId, retry: handoff.retry }, pages),
    pages,
  };
}

/**
 * After the test: every open page's queue handed over and delivered, and a failed test annotated with the replay at
 * its failure. The deliveries of a passed test that no longer need their page go to `acks`, awaited once its context
 * has closed (see withSvc), so the server's answers come while the context closes; the others are awaited here.
 */
async function finish(
  svc: Svc,
  pages: ContextPages,
  acks: Promise<unknown>[],
  testInfo: TestInfo,
  endedAt: number,
): Promise<void> {
  const passed = testInfo.status === testInfo.expectedStatus;
  const deliveries = (await quietly(() => pages.handOver())) ?? [];
  const later = passed ? deliveries.filter((d) => d.detached) : [];
  acks.push(...later.map((d) => d.deliver()));
  await Promise.all(deliveries.filter((d) => !later.includes(d)).map((d) => d.deliver()));
  if (passed) return;
  const links = (await quietly(() => svc.failureLinks(endedAt))) ?? [];
  for (const description of links) testInfo.annotations.push({ type: LINK_ANNOTATION, description });
}

type Args = PlaywrightTestArgs & PlaywrightTestOptions;
type WorkerArgs = PlaywrightWorkerArgs & PlaywrightWorkerOptions;

/**
 * `base` with svc: each test's pages get the test's context (and the SDK with `inject`), their SDKs are flushed when
 * it ends, and the `svc` fixture reads what they sent. `svc` is set in playwright.config's `use` (it is an option
 * there); `test.use({ svc })` in a test file would replace the reader, so it is refused.
 */
export function withSvc<T extends Args, W extends WorkerArgs>(
  base: TestType<T, W>,
): TestType<Omit<T, 'svc'> & SvcFixtures, W> {
  // Two registrations of one name: the option (which `use` in the config overrides), then the reader built on it.
  const options = (base as unknown as TestType<Args, WorkerArgs>).extend<
    SvcTestOptions & { _svcAcks: Promise<unknown>[]; _svcAuto: void }
  >({
    svc: [{}, { option: true }],
    // The server's answers to a test's last deliveries. Auto, depending on nothing and listed before the fixtures that
    // create the context: set up before it, so torn down after it closed. The test ends once they have come.
    _svcAcks: [
      // Playwright requires an object pattern as a fixture's first parameter, even an empty one.
      // eslint-disable-next-line no-empty-pattern
      async ({}, use) => {
        const acks: Promise<unknown>[] = [];
        await use(acks);
        await Promise.all(acks);
      },
      { auto: true, box: true },
    ],
    // Auto, so every test gets the handoff and the flush, whether or not it asks for `svc`.
    _svcAuto: [
      async ({ svc }, use) => {
        if (!(svc instanceof Svc)) {
          throw new Error(
            'svc: the `svc` option is set in playwright.config (`use: { svc: {...} }`) or with SVC_* variables; `test.use({ svc })` in a test file replaces the fixture',
          );
        }
        await use();
      },
      // Boxed: kept out of the report's steps (Playwright >= 1.46; older ones ignore it).
      { auto: true, box: true },
    ],
  });
  // The reader's own `svc` parameter is the option's value: a fixture that overrides itself receives the one before.
  const reader = options.extend({
    svc: async (
      { svc: given, context, _svcAcks }: { svc: SvcOptions; context: BrowserContext; _svcAcks: Promise<unknown>[] },
      use: (svc: Svc) => Promise<void>,
      testInfo: TestInfo,
    ) => {
      const { svc, pages } = await prepare(context, given, testInfo);
      try {
        await use(svc);
        await finish(svc, pages, _svcAcks, testInfo, Date.now());
      } finally {
        pages.dispose();
      }
    },
  } as never);
  return reader as unknown as TestType<Omit<T, 'svc'> & SvcFixtures, W>;
}
