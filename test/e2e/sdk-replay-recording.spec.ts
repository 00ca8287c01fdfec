import type { Page } from '@playwright/test';
import { MASK } from '../../src/replay/sensitive';
import { ensureSdkBuilt } from '../support/build-sdk';
import { startIngestProxy } from '../support/ingest-proxy';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, hex, test } from './fixtures';

/**
 * The SDK's recording side in Chromium, read back from what the reference server stored (GET
 * /control-plane/replay/chunks returns each chunk's decoded events): which form values, texts and elements reach a
 * chunk, the order of chunks, and the page-unload path, including what a closing page could not hand over, which the
 * next page load of the origin sends. The SDK is the script-tag build (dist/cdn/svc.min.js, which loads
 * svc-recorder.min.js when replay starts), on its own origin, sending to the server's origin.
 */

let app: SdkPageServer;
test.beforeAll(async () => {
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  app = await startSdkPage();
});
test.afterAll(() => app.close());

interface StoredChunk {
  replay_id: string;
  seq: number;
  event_count: number;
  events: RrwebEvent[];
}
interface RrwebEvent {
  type: number;
  timestamp: number;
  data: Record<string, unknown>;
}
interface SerializedNode {
  type: number;
  id: number;
  tagName?: string;
  attributes?: Record<string, unknown>;
  childNodes?: SerializedNode[];
  textContent?: string;
}

function pageHtml(ingest: TestServer, replay: Record<string, unknown>, body: string): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    flushIntervalMs: 60_000,
    debug: true,
    replay,
  };
  return `<!doctype html><html><head><title>recording</title></head><body>${body}
<script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script></body></html>`;
}

async function open(page: Page, html: string, path = '/'): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  app.setHtml(html);
  await page.goto(`${app.origin}${path}`);
  return errors;
}

/** Waits until the recorder has taken its first full snapshot (rrweb's first events are in the buffer). */
async function recordingStarted(page: Page): Promise<void> {
  // The loader removes the recorder's <script> in its load handler and starts recording in the same task (promise
  // callbacks), so once the file has registered and its tag is gone, the first full snapshot has been taken.
  await expect
    .poll(() =>
      page.evaluate(
        () =>
          ((globalThis as { [key: symbol]: Map<string, unknown> | undefined })[Symbol.for('@svc/browser/recorders')]
            ?.size ?? 0) === 1 && document.querySelector('script[src*="svc-recorder"]') === null,
      ),
    )
    .toBe(true);
}

/** Every chunk stored for the session, in (replay, seq) order, once `until` holds for them. */
async function storedChunks(
  ingest: TestServer,
  sessionId: string,
  until: (chunks: StoredChunk[]) => boolean,
): Promise<StoredChunk[]> {
  let chunks: StoredChunk[] = [];
  await expect
    .poll(
      async () => {
        const res = await controlGet<{ data: StoredChunk[] }>(
          ingest,
          `/replay/chunks?session_id=${sessionId}&limit=100`,
        );
        chunks = res.body.data.sort((a, b) => a.replay_id.localeCompare(b.replay_id) || a.seq - b.seq);
        return until(chunks);
      },
      { message: 'replay chunks stored', timeout: 20_000 },
    )
    .toBe(true);
  return chunks;
}

const allEvents = (chunks: StoredChunk[]): RrwebEvent[] => chunks.flatMap((chunk) => chunk.events);

const customTags = (chunks: StoredChunk[]): string[] =>
  allEvents(chunks).flatMap((event) => (event.type === 5 ? [String((event.data as { tag: unknown }).tag)] : []));

/** Per replay, the seqs stored must be 0, 1, 2, … with nothing missing. */
function expectContiguous(chunks: StoredChunk[]): void {
  const byReplay = new Map<string, number[]>();
  for (const chunk of chunks) byReplay.set(chunk.replay_id, [...(byReplay.get(chunk.replay_id) ?? []), chunk.seq]);
  for (const [replayId, seqs] of byReplay) expect(seqs, `seqs of replay ${replayId}`).toEqual(seqs.map((_, i) => i));
}

/** Element ids (the `id` attribute) of every serialized element, by rrweb node id, from snapshots and added nodes. */
function nodesById(events: RrwebEvent[]): Map<number, SerializedNode> {
  const nodes = new Map<number, SerializedNode>();
  const visit = (node: SerializedNode) => {
    nodes.set(node.id, node);
    for (const child of node.childNodes ?? []) visit(child);
  };
  for (const event of events) {
    if (event.type === 2) visit(event.data.node as SerializedNode);
    if (event.type === 3 && event.data.source === 0)
      for (const add of event.data.adds as Array<{ node: SerializedNode }>) visit(add.node);
  }
  return nodes;
}

/** Every value recorded for the field with this element id: snapshot attribute, input events, `value` mutations. */
function recordedValues(events: RrwebEvent[], elementId: string): string[] {
  const nodes = [...nodesById(events).values()].filter((node) => node.attributes?.id === elementId);
  expect(nodes.length, `#${elementId} recorded`).toBeGreaterThan(0);
  const ids = new Set(nodes.map((node) => node.id));
  const values: string[] = [];
  for (const node of nodes) {
    if (typeof node.attributes?.value === 'string') values.push(node.attributes.value);
    for (const child of node.childNodes ?? []) if (child.type === 3) values.push(child.textContent ?? '');
  }
  for (const event of events) {
    if (event.type !== 3) continue;
    const data = event.data as {
      source: number;
      id?: number;
      text?: string;
      attributes?: Array<{ id: number; attributes: Record<string, unknown> }>;
    };
    if (data.source === 5 && ids.has(data.id!)) values.push(data.text ?? '');
    if (data.source === 0) {
      for (const change of data.attributes ?? [])
        if (ids.has(change.id) && typeof change.attributes.value === 'string') values.push(change.attributes.value);
    }
  }
  return values;
}

test.describe('privacy before serialization', () => {
  /** Typed into each field; none may reach a chunk. */
  const typed = {
    pw: `pw-${hex(6)}`,
    mail: `mail-${hex(6)}@example.com`,
    tel: `+4479${hex(4).replace(/[a-f]/g, '7')}`,
    cc: '4111111111111111',
    newpw: `newpw-${hex(6)}`,
    otp: `otp${hex(3)}`,
    'by-name': `apikey-${hex(6)}`,
    'by-aria': `token-${hex(6)}`,
    'by-label': `answer-${hex(6)}`,
    'by-placeholder': `pin${hex(3)}`,
    notes: `secret-note-${hex(6)}`,
    'inside-mask': `nick-${hex(6)}`,
  } as const;
  /** Held by the page without typing. */
  const held = {
    hidden: `csrf-${hex(8)}`,
    prefilledPw: `default-pw-${hex(6)}`,
    prefilledText: `default-textarea-${hex(6)}`,
    attributePw: `attr-pw-${hex(6)}`,
    blocked: `blocked-${hex(6)}`,
    masked: `masked-${hex(6)}`,
    urlToken: `urltoken-${hex(6)}`,
  };
  const visible = { city: `Springfield-${hex(4)}`, attributeCity: `Shelbyville-${hex(4)}` };

  const body = `
<form onsubmit="return false">
  <label>City <input id="city" name="city"></label>
  <input id="pw" type="password" name="pw">
  <input id="prefilled-pw" type="password" name="pw2" value="${held.prefilledPw}">
  <input id="mail" type="email" name="contact">
  <input id="tel" type="tel" name="phone">
  <input id="hidden" type="hidden" name="h" value="${held.hidden}">
  <input id="cc" name="c1" autocomplete="cc-number">
  <input id="newpw" name="np" autocomplete="new-password">
  <input id="otp" name="c2" autocomplete="one-time-code">
  <input id="by-name" name="api_key">
  <input id="by-aria" name="f1" aria-label="Access token">
  <label for="by-label">Secret answer</label><input id="by-label" name="q1">
  <input id="by-placeholder" name="f2" placeholder="Your PIN">
  <textarea id="notes" name="client_secret"></textarea>
  <textarea id="prefilled-notes" name="private_secret">${held.prefilledText}</textarea>
  <select id="card-type" name="card_type"><option value="">-</option><option value="visa">Visa</option></select>
  <div class="ob-mask"><input id="inside-mask" name="nickname"></div>
</form>
<div class="ob-block" id="blocked"><p>${held.blocked}</p></div>
<p class="ob-mask" id="masked">${held.masked}</p>
<script>
  // Cleared by the user before recording starts: rrweb would copy the value attribute as it is.
  document.getElementById('prefilled-pw').value = '';
  document.getElementById('prefilled-notes').value = '';
</script>`;

  test('sensitive fields of every kind are recorded as MASK only; typed public text, and nothing of ob-block, reaches the chunks', async ({
    page,
    ingest,
  }) => {
    const errors = await open(
      page,
      pageHtml(ingest, { maskAllInputs: false, sampling: { input: 'all' } }, body),
      `/checkout?token=${held.urlToken}&step=2`,
    );
    await recordingStarted(page);

    for (const [id, value] of Object.entries(typed)) await page.locator(`#${id}`).pressSequentially(value);
    await page.locator('#city').pressSequentially(visible.city);
    await page.locator('#card-type').selectOption('visa');
    await page.evaluate(
      ({ pw, city }) => {
        document.getElementById('pw')!.setAttribute('value', pw);
        document.getElementById('city')!.setAttribute('value', city);
      },
      { pw: held.attributePw, city: visible.attributeCity },
    );
    const sessionId = await page.evaluate(async () => {
      const sdk = (window as unknown as { sdk: { sessionId: string; flushReplay(): Promise<void> } }).sdk;
      await sdk.flushReplay();
      return sdk.sessionId;
    });
    const chunks = await storedChunks(ingest, sessionId, (stored) =>
      JSON.stringify(stored).includes(visible.attributeCity),
    );
    expect(errors).toEqual([]);
    const events = allEvents(chunks);
    const text = JSON.stringify(events);

    for (const [name, secret] of Object.entries({ ...typed, ...held }))
      expect(text.includes(secret), `"${name}" reached a chunk`).toBe(false);
    for (const id of [...Object.keys(typed), 'card-type']) {
      const values = recordedValues(events, id);
      expect(values, `values recorded for #${id}`).toContain(MASK);
      expect(new Set(values), `values recorded for #${id}`).toEqual(new Set([MASK]));
    }
    for (const id of ['hidden', 'prefilled-pw', 'prefilled-notes'])
      expect(new Set(recordedValues(events, id)), `#${id}`).toEqual(new Set([MASK]));
    expect(recordedValues(events, 'pw')).toContain(MASK);

    const cityValues = recordedValues(events, 'city');
    expect(cityValues).toContain(visible.city);
    expect(cityValues).toContain(visible.attributeCity);

    const nodes = [...nodesById(events).values()];
    const blocked = nodes.find((node) => node.attributes?.id === 'blocked');
    expect(blocked?.childNodes ?? []).toEqual([]);
    const masked = nodes.find((node) => node.attributes?.id === 'masked');
    expect(masked?.childNodes?.map((child) => child.textContent)).toEqual([MASK]);

    const meta = events.find((event) => event.type === 4);
    expect(meta?.data.href).toBe(`${app.origin}/checkout?token=[REDACTED]&step=2`);
    expectContiguous(chunks);
  });

  test('with maskAllInputs (the default) every typed value is MASK', async ({ page, ingest }) => {
    await open(page, pageHtml(ingest, { sampling: { input: 'all' } }, body));
    await recordingStarted(page);
    await page.locator('#city').pressSequentially(visible.city);
    const sessionId = await page.evaluate(async () => {
      const sdk = (window as unknown as { sdk: { sessionId: string; flushReplay(): Promise<void> } }).sdk;
      await sdk.flushReplay();
      return sdk.sessionId;
    });
    const chunks = await storedChunks(ingest, sessionId, (stored) => stored.length > 0);
    expect(JSON.stringify(chunks)).not.toContain(visible.city);
    expect(new Set(recordedValues(allEvents(chunks), 'city'))).toEqual(new Set([MASK]));
  });
});

test.describe('chunks', () => {
  test('a flush while chunks are being sent keeps seqs contiguous and in order; every event arrives once', async ({
    page,
    ingest,
  }) => {
    await open(page, pageHtml(ingest, { maxChunkBytes: 4_000, flushIntervalMs: 100 }, '<p>chunks</p>'));
    await recordingStarted(page);
    const count = 60;
    const sessionId = await page.evaluate(async (n) => {
      const sdk = (
        window as unknown as {
          sdk: { sessionId: string; captureReplayEvent(t: string, p: unknown): void; flushReplay(): Promise<void> };
        }
      ).sdk;
      for (let i = 0; i < n; i++) {
        // About 300 bytes each: a chunk fills every dozen, while the timer also flushes.
        sdk.captureReplayEvent(`marker-${i}`, { pad: 'x'.repeat(250) });
        if (i % 7 === 0) void sdk.flushReplay();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await sdk.flushReplay();
      return sdk.sessionId;
    }, count);
    const chunks = await storedChunks(
      ingest,
      sessionId,
      (stored) => customTags(stored).filter((tag) => tag.startsWith('marker-')).length >= count,
    );
    expectContiguous(chunks);
    expect(chunks.length).toBeGreaterThan(3);
    expect(customTags(chunks).filter((tag) => tag.startsWith('marker-'))).toEqual(
      Array.from({ length: count }, (_, i) => `marker-${i}`),
    );
    for (const chunk of chunks) expect(chunk.events).toHaveLength(chunk.event_count);
  });
});

test.describe('unload', () => {
  test('closing the page sends what was buffered', async ({ page, ingest }) => {
    await open(page, pageHtml(ingest, {}, '<p>closing</p>'));
    await recordingStarted(page);
    const sessionId = await page.evaluate(() => {
      const sdk = (window as unknown as { sdk: { sessionId: string; captureReplayEvent(t: string, p: unknown): void } })
        .sdk;
      sdk.captureReplayEvent('before-close', { ok: true });
      return sdk.sessionId;
    });
    await page.close({ runBeforeUnload: true });
    const chunks = await storedChunks(ingest, sessionId, (stored) => customTags(stored).includes('before-close'));
    expectContiguous(chunks);
    expect(allEvents(chunks).some((event) => event.type === 2)).toBe(true);
  });

  test('what a closing page could not hand over within the keepalive quota is sent by the next page load', async ({
    context,
    ingest,
  }) => {
    // Answers held back: the closing page's requests stay in flight (and stored) while it closes, so the quota they take
    // is not freed for the page's next hide event to hand over more. With fast answers a lingering close could send it
    // all, and the next load would have nothing to send.
    const proxy = await startIngestProxy(ingest.url, { answerDelayMs: 2_000 });
    try {
      const first = await context.newPage();
      // No timer flush: on a slow machine the 5 s default could send the whole buffer by plain fetch before the close.
      await open(
        first,
        pageHtml(
          { ...ingest, url: proxy.url },
          { maxChunkBytes: 1_000_000, flushIntervalMs: 600_000 },
          '<p>big buffer</p>',
        ),
      );
      await recordingStarted(first);
      const count = 40;
      const sessionId = await first.evaluate((n) => {
        const sdk = (
          window as unknown as { sdk: { sessionId: string; captureReplayEvent(t: string, p: unknown): void } }
        ).sdk;
        // 40 × 8 KB: five times the 64 KiB the browser lets a closing page send.
        for (let i = 0; i < n; i++) sdk.captureReplayEvent(`big-${i}`, { pad: `${i}`.padEnd(8_000, '.') });
        return sdk.sessionId;
      }, count);
      await first.close({ runBeforeUnload: true });

      const bigTags = (chunks: StoredChunk[]) => customTags(chunks).filter((tag) => tag.startsWith('big-'));
      const handedOver = await storedChunks(ingest, sessionId, (stored) => bigTags(stored).length > 0);
      expect(bigTags(handedOver).length).toBeLessThan(count);

      const second = await context.newPage();
      await open(second, pageHtml(ingest, {}, '<p>next load</p>'));
      const chunks = await storedChunks(ingest, sessionId, (stored) => bigTags(stored).length === count);
      expect(bigTags(chunks)).toEqual(Array.from({ length: count }, (_, i) => `big-${i}`));
      expectContiguous(chunks);
      // Each copy goes once its request has been answered.
      await expect
        .poll(() => second.evaluate(() => Object.keys(localStorage).filter((key) => key.includes('.replay.'))))
        .toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});

test.describe('memory', () => {
  test('recording borrows no iframe: rrweb finds the DOM accessors of the page native', async ({ page, ingest }) => {
    // Installed before the SDK: sees every iframe rrweb would add to check for untainted prototypes.
    const watcher = `<script>window.iframesAdded = 0; new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes) if (n.nodeName === 'IFRAME') window.iframesAdded++; }).observe(document.documentElement, { childList: true, subtree: true });</script>`;
    await open(page, pageHtml(ingest, {}, `${watcher}<p>no iframe</p><button id="b">b</button>`));
    await recordingStarted(page);
    await page.locator('#b').click();
    await page.evaluate(() => (window as unknown as { sdk: { flushReplay(): Promise<void> } }).sdk.flushReplay());
    expect(await page.evaluate(() => (window as unknown as { iframesAdded: number }).iframesAdded)).toBe(0);
  });
});

test.describe('DOM changes', () => {
  type Sdk = { sessionId: string; flushReplay(): Promise<void> };

  test('nodes added and removed within the coalescing window are never serialized; nodes that stay are, stamped when they changed', async ({
    page,
    ingest,
  }) => {
    const kept = `kept-${hex(6)}`;
    await open(page, pageHtml(ingest, {}, '<ul id="list"></ul>'));
    await recordingStarted(page);
    const { sessionId, changedFrom } = await page.evaluate(async (keptText) => {
      const list = document.getElementById('list')!;
      // A list rendered and replaced on the next frame, as a re-render or a skeleton swap does.
      for (let i = 0; i < 300; i++) list.insertAdjacentHTML('beforeend', `<li class="transient">transient ${i}</li>`);
      await new Promise((resolve) => requestAnimationFrame(resolve));
      list.replaceChildren();
      const changedFrom = Date.now();
      list.insertAdjacentHTML('beforeend', `<li id="kept">${keptText}</li>`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      const sdk = (window as unknown as { sdk: Sdk & { captureReplayEvent(t: string, p: unknown): void } }).sdk;
      // A timeline event while the change is held: it must come after the change, in order.
      sdk.captureReplayEvent('while-held', {});
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Flushing releases what the window holds: no need to wait for it.
      await sdk.flushReplay();
      return { sessionId: sdk.sessionId, changedFrom };
    }, kept);
    const chunks = await storedChunks(ingest, sessionId, (stored) => JSON.stringify(stored).includes(kept));
    const text = JSON.stringify(chunks);
    expect(text).not.toContain('transient');
    expect(text).not.toContain('svc.release_dom_changes');
    expect([...nodesById(allEvents(chunks)).values()].some((node) => node.attributes?.id === 'kept')).toBe(true);
    // Released at the flush, but stamped when the change happened: no earlier than the change, and before the timeline
    // event captured while it was held (stamped at the release, it would come after). The stream stays in time order.
    const events = allEvents(chunks);
    const timestamps = events.map((event) => event.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
    const added = events.find(
      (event) => event.type === 3 && event.data.source === 0 && JSON.stringify(event.data).includes(kept),
    );
    const whileHeld = events.find((event) => event.type === 5 && event.data.tag === 'while-held');
    expect(added!.timestamp).toBeGreaterThanOrEqual(changedFrom);
    expect(added!.timestamp).toBeLessThan(whileHeld!.timestamp);
    expect(events.indexOf(added!)).toBeLessThan(events.indexOf(whileHeld!));
  });

  test('typing into a field and clicking a button the replay knows leave the held changes held', async ({
    page,
    ingest,
  }) => {
    await open(
      page,
      pageHtml(
        ingest,
        { maskAllInputs: false, sampling: { input: 'all' } },
        '<input id="field" name="city"><button id="known">known</button><ul id="list"></ul>',
      ),
    );
    await recordingStarted(page);
    const sessionId = await page.evaluate(async () => {
      const list = document.getElementById('list')!;
      const field = document.getElementById('field') as HTMLInputElement;
      list.insertAdjacentHTML('beforeend', '<li id="before-input">before</li>');
      // The observers have seen the change; the window holds it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      // What a person typing and clicking while the page re-renders elsewhere does: none of it names a new node.
      field.focus();
      field.value = 'Springfield';
      field.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: 'd' }));
      document.getElementById('known')!.click();
      field.blur();
      list.insertAdjacentHTML('beforeend', '<li id="after-input">after</li>');
      const sdk = (window as unknown as { sdk: Sdk }).sdk;
      await sdk.flushReplay();
      return sdk.sessionId;
    });
    const chunks = await storedChunks(ingest, sessionId, (stored) => JSON.stringify(stored).includes('after-input'));
    const events = allEvents(chunks);
    const nodes = [...nodesById(events).values()];
    const idOf = (elementId: string) => nodes.find((node) => node.attributes?.id === elementId)?.id;
    // Both changes in one mutation event: the input, focus, blur and click in between did not release the window.
    const adds = events.filter(
      (event) => event.type === 3 && event.data.source === 0 && (event.data.adds as unknown[]).length > 0,
    );
    expect(
      adds.map((event) =>
        JSON.stringify(event.data)
          .match(/before-input|after-input/g)
          ?.sort(),
      ),
    ).toEqual([['after-input', 'before-input']]);
    // ... and what the user did is recorded against the nodes it happened on, before the changes released later.
    const typed = events.find(
      (event) => event.type === 3 && event.data.source === 5 && event.data.text === 'Springfield',
    );
    const clicked = events.find((event) => event.type === 3 && event.data.source === 2 && event.data.type === 2);
    expect(typed?.data.id).toBe(idOf('field'));
    expect(clicked?.data.id).toBe(idOf('known'));
    expect(events.indexOf(clicked!)).toBeLessThan(events.indexOf(adds[0]!));
    const timestamps = events.map((event) => event.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
  });

  test('a mouse position over a node still held names its nearest recorded ancestor', async ({ page, ingest }) => {
    await open(page, pageHtml(ingest, {}, '<section id="area"><p id="old">old</p></section>'));
    await recordingStarted(page);
    const sessionId = await page.evaluate(async () => {
      const area = document.getElementById('area')!;
      area.insertAdjacentHTML('beforeend', '<p><b id="fresh">fresh</b></p>');
      // The observers have seen the change; the window holds it, and a mouse move does not release it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const at = { bubbles: true, clientX: 5, clientY: 5 };
      document.getElementById('fresh')!.dispatchEvent(new MouseEvent('mousemove', at));
      const sdk = (window as unknown as { sdk: Sdk }).sdk;
      await sdk.flushReplay();
      return sdk.sessionId;
    });
    const moves = (events: RrwebEvent[]) => events.filter((event) => event.type === 3 && event.data.source === 1);
    const chunks = await storedChunks(ingest, sessionId, (stored) => moves(allEvents(stored)).length > 0);
    const events = allEvents(chunks);
    const area = [...nodesById(events).values()].find((node) => node.attributes?.id === 'area');
    const positions = moves(events).flatMap((event) => event.data.positions as { id: number }[]);
    // rrweb's player skips a position whose node it cannot find (-1): the cursor would freeze there.
    expect(positions.map((position) => position.id)).toEqual([area!.id]);
  });

  test('a click on a node added a moment before is recorded with that node', async ({ page, ingest }) => {
    await open(page, pageHtml(ingest, {}, '<main id="main"></main>'));
    await recordingStarted(page);
    const sessionId = await page.evaluate(async () => {
      document.getElementById('main')!.insertAdjacentHTML('beforeend', '<button id="fresh">fresh</button>');
      // The observers have seen the change; the window still holds it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      document.getElementById('fresh')!.click();
      const sdk = (window as unknown as { sdk: Sdk }).sdk;
      await sdk.flushReplay();
      return sdk.sessionId;
    });
    const clicked = (events: RrwebEvent[]) =>
      events.filter((event) => event.type === 3 && event.data.source === 2 && event.data.type === 2);
    const chunks = await storedChunks(ingest, sessionId, (stored) => clicked(allEvents(stored)).length > 0);
    const events = allEvents(chunks);
    const fresh = [...nodesById(events).values()].find((node) => node.attributes?.id === 'fresh');
    expect(fresh, '#fresh serialized').toBeDefined();
    expect(clicked(events).map((event) => event.data.id)).toEqual([fresh!.id]);
    const addedAt = events.findIndex(
      (event) => event.type === 3 && event.data.source === 0 && JSON.stringify(event.data).includes('"fresh"'),
    );
    expect(addedAt).toBeGreaterThanOrEqual(0);
    expect(addedAt).toBeLessThan(events.indexOf(clicked(events)[0]!));
  });
});
