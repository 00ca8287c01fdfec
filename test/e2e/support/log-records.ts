import type { Page } from '@playwright/test';

/** Attribute carried by every record a test logs, to find and dedupe them. */
export const SEQ = 'test.seq';

/**
 * Logs `count` records through the page's SDK (`window.sdk`), numbered from `from` (attribute {@link SEQ}), each with
 * its own ~`size` characters of body. The padding is joined from distinct parts: `'x'.repeat(n)` would be a tree of
 * shared halves in V8, a few hundred bytes whatever `n`, and memory tests need records that really weigh `size` bytes.
 */
export async function logRecords(page: Page, from: number, count: number, size = 0): Promise<void> {
  await page.evaluate(
    ({ from, count, size, seq }) => {
      const sdk = (window as unknown as { sdk: { log(level: string, message: string, context: object): void } }).sdk;
      for (let i = from; i < from + count; i++) {
        const padding = Array.from({ length: Math.ceil(size / 8) }, (_, k) =>
          (i * 1e4 + k).toString(16).padStart(8, '0'),
        ).join('');
        sdk.log('info', `record ${i} ${padding}`, { attrs: { [seq]: i } });
      }
    },
    { from, count, size, seq: SEQ },
  );
}
