/**
 * The workload page of `bench:overhead`: a small single-page app, identical in every variant (only the SDK set up
 * before `startApp` differs). It renders its own UI and exposes `window.bench` to the driver (bench/overhead/run.ts),
 * which clicks and types through real input events; the handlers below are what a typical app does on them:
 *
 * - "Load items": `console.info`, GET /api/items, renders the 50 rows it returns (replacing the previous ones);
 * - "Save": POST /api/save with the form as JSON, `console.log` on success, `console.warn` on the server's 500s;
 * - "Churn": adds 2,000 nodes, removes them on the next frame, `console.debug`;
 * - "Live": a block of 50 rows (250 nodes) replaced every 5 ms for 500 ms, as a live feed or a ticking table
 *   re-renders, `console.debug` at the end: DOM changes that stay on screen, unlike "Churn"'s;
 * - "Next page": `history.pushState` to another route and a new title (an SPA navigation);
 * - typing in the form's fields: an `input` listener updating a character count.
 */

/** Where the driver should click, in CSS pixels of the viewport. */
export type BenchTargets = Record<
  'load' | 'save' | 'churn' | 'live' | 'next' | 'name' | 'email',
  { x: number; y: number }
>;

/** What the page exposes to the driver as `window.bench`. */
export interface BenchPage {
  /** Centres of the controls, computed once after the first render (they never move). */
  targets(): BenchTargets;
  /** Resolves once every request and render started by earlier input has finished. */
  idle(): Promise<void>;
}

declare global {
  interface Window {
    bench?: BenchPage;
  }
}

/** What the driver passes in the page URL: the run (for attribution) and the telemetry sink's origin. */
interface BenchParams {
  run: string;
  sink: string;
}

/**
 * Reads the run number from the path (`/r/<run>/<variant>/...`) and the sink origin from `<meta name="bench-sink">`
 * (not from the query string, which both SDKs would copy into every URL attribute and inflate the bytes sent).
 */
function benchParams(): BenchParams {
  const run = /^\/r\/(\d+)\//.exec(location.pathname)?.[1] ?? '0';
  const sink = document.querySelector<HTMLMetaElement>('meta[name="bench-sink"]')?.content ?? location.origin;
  return { run, sink };
}

/** svc's `ingestUrl` for this run: the sink, under `/r/<run>` so that the sink can tell runs apart. */
export function svcIngestUrl(): string {
  const { run, sink } = benchParams();
  return `${sink}/r/${run}`;
}

/** Sentry's DSN for this run: the project id is the run number, so envelopes arrive as `/api/<run>/envelope/`. */
export function sentryDsn(): string {
  const { run, sink } = benchParams();
  const dsn = new URL(sink);
  dsn.username = 'bench';
  dsn.pathname = `/${run}`;
  return dsn.href;
}

/**
 * Datadog's `proxy` for this run: every intake request goes to the sink as `/r/<run>/dd/api/v2/<track>?<parameters>`
 * (Datadog's own path and query kept, so the sink tells RUM, logs and replay apart).
 */
export function datadogProxy(): (request: { path: string; parameters: string }) => string {
  const { run, sink } = benchParams();
  return ({ path, parameters }) => `${sink}/r/${run}/dd${path}?${parameters}`;
}

const CHURN_NODES = 2000;
/** "Live": a block of this many rows (5 nodes each) replaced every `LIVE_EVERY_MS` for `LIVE_MS`. */
const LIVE_ROWS = 50;
const LIVE_EVERY_MS = 5;
const LIVE_MS = 500;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string>,
  text = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

interface Item {
  id: number;
  name: string;
  price: number;
  tags: string[];
}

/** Renders the app into `document.body` and wires the handlers; call after the SDK (if any) is initialised. */
export function startApp(): void {
  // Route changes keep the run and variant prefix, so the page's relative asset URLs stay valid.
  const base = location.pathname.replace(/(page\/\d+)?$/, '').replace(/[^/]*$/, '');
  let pending = 0;
  let waiters: Array<() => void> = [];
  let loads = 0;
  let saves = 0;
  let pages = 0;

  const settle = (): void => {
    if (pending > 0) return;
    const done = waiters;
    waiters = [];
    // One frame and one task later, so that work queued by the handlers (renders, observers) has run too.
    requestAnimationFrame(() => setTimeout(() => done.forEach((resolve) => resolve()), 0));
  };
  const track = async (work: () => Promise<void>): Promise<void> => {
    pending += 1;
    try {
      await work();
    } catch (error) {
      console.warn('request failed', error);
    } finally {
      pending -= 1;
      settle();
    }
  };

  const toolbar = element('div', { id: 'toolbar' });
  const buttons = {
    load: element('button', { id: 'load', type: 'button' }, 'Load items'),
    save: element('button', { id: 'save', type: 'button' }, 'Save'),
    churn: element('button', { id: 'churn', type: 'button' }, 'Churn'),
    live: element('button', { id: 'live', type: 'button' }, 'Live'),
    next: element('button', { id: 'next', type: 'button' }, 'Next page'),
  };
  toolbar.append(...Object.values(buttons));
  const form = element('form', { id: 'form' });
  const fields = {
    name: element('input', { id: 'name', name: 'name', placeholder: 'Name' }),
    email: element('input', { id: 'email', name: 'email', type: 'email', placeholder: 'E-mail' }),
  };
  const count = element('span', { id: 'count' }, '0 characters');
  form.append(fields.name, fields.email, count);
  const status = element('p', { id: 'status' });
  const list = element('ul', { id: 'list' });
  const churnArea = element('div', { id: 'churn-area' });
  const liveArea = element('div', { id: 'live-area' });
  document.body.append(toolbar, form, status, list, churnArea, liveArea);

  form.addEventListener('input', () => {
    count.textContent = `${fields.name.value.length + fields.email.value.length} characters`;
  });

  buttons.load.addEventListener('click', () => {
    loads += 1;
    const page = loads;
    console.info(`loading items, page ${page}`);
    void track(async () => {
      const response = await fetch(`/api/items?page=${page}`);
      const items = (await response.json()) as Item[];
      list.replaceChildren(
        ...items.map((item) => {
          const row = element('li', { 'data-id': String(item.id) });
          row.append(element('strong', {}, item.name), element('span', { class: 'price' }, item.price.toFixed(2)));
          for (const tag of item.tags) row.append(element('em', {}, tag));
          return row;
        }),
      );
      status.textContent = `${items.length} items`;
    });
  });

  buttons.save.addEventListener('click', () => {
    saves += 1;
    const body = JSON.stringify({ attempt: saves, name: fields.name.value, email: fields.email.value });
    void track(async () => {
      const response = await fetch('/api/save', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      if (response.ok) {
        const { id } = (await response.json()) as { id: number };
        console.log('saved', id);
        form.reset();
        status.textContent = `saved #${id}`;
      } else {
        console.warn(`save failed: HTTP ${response.status}`);
        status.textContent = 'save failed';
      }
    });
  });

  buttons.churn.addEventListener('click', () => {
    void track(async () => {
      const fragment = document.createDocumentFragment();
      for (let i = 0; i < CHURN_NODES; i++) {
        const node = element('div', { class: 'cell' });
        node.append(element('span', {}, `cell ${i}`));
        fragment.append(node);
      }
      churnArea.append(fragment);
      await new Promise((resolve) => requestAnimationFrame(resolve));
      churnArea.replaceChildren();
      console.debug(`churned ${CHURN_NODES} nodes`);
    });
  });

  let ticks = 0;
  const liveRows = (): HTMLElement[] => {
    ticks += 1;
    return Array.from({ length: LIVE_ROWS }, (_, i) => {
      const row = element('div', { class: 'tick' });
      row.append(element('b', {}, `#${i}`), element('span', {}, `${((ticks * 7919 + i * 104729) % 100000) / 100}`));
      return row;
    });
  };
  buttons.live.addEventListener('click', () => {
    void track(async () => {
      const until = performance.now() + LIVE_MS;
      while (performance.now() < until) {
        liveArea.replaceChildren(...liveRows());
        await new Promise((resolve) => setTimeout(resolve, LIVE_EVERY_MS));
      }
      console.debug(`live feed: ${ticks} updates`);
    });
  });

  buttons.next.addEventListener('click', () => {
    pages += 1;
    history.pushState({ page: pages }, '', `${base}page/${pages}`);
    document.title = `Bench shop, page ${pages}`;
    status.textContent = `page ${pages}`;
    settle();
  });

  window.bench = {
    targets() {
      const centre = (node: HTMLElement) => {
        const rect = node.getBoundingClientRect();
        return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
      };
      return {
        load: centre(buttons.load),
        save: centre(buttons.save),
        churn: centre(buttons.churn),
        live: centre(buttons.live),
        next: centre(buttons.next),
        name: centre(fields.name),
        email: centre(fields.email),
      };
    },
    idle() {
      return new Promise<void>((resolve) => {
        waiters.push(resolve);
        settle();
      });
    },
  };
}
