/**
 * Workload `classic`: the page of issues 3, 4 and 16, a small shop, unchanged so that earlier figures stay
 * comparable. The driver (bench/overhead/workloads/classic.ts) clicks and types; the handlers do what a typical app
 * does on them:
 *
 * - "Load items": `console.info`, GET /api/items, renders the 50 rows it returns (replacing the previous ones);
 * - "Save": POST /api/save with the form as JSON, `console.log` on success, `console.warn` on the server's 500s;
 * - "Churn": adds 2,000 nodes, removes them on the next frame, `console.debug`;
 * - "Live": a block of 50 rows (250 nodes) replaced every 5 ms for 500 ms, as a live feed or a ticking table
 *   re-renders, `console.debug` at the end: DOM changes that stay on screen, unlike "Churn"'s;
 * - "Next page": `history.pushState` to another route and a new title (an SPA navigation);
 * - typing in the form's fields: an `input` listener updating a character count.
 */
import { element, type StartWorkload } from '../kit';

const CHURN_NODES = 2000;
/** "Live": a block of this many rows (5 nodes each) replaced every `LIVE_EVERY_MS` for `LIVE_MS`. */
const LIVE_ROWS = 50;
const LIVE_EVERY_MS = 5;
const LIVE_MS = 500;

interface Item {
  id: number;
  name: string;
  price: number;
  tags: string[];
}

/** The workload of issues 3, 4 and 16 (see the file's comment), kept as it was so that earlier figures compare. */
export const startClassic: StartWorkload = ({ base, track, settle }) => {
  let loads = 0;
  let saves = 0;
  let pages = 0;

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

  return { ...buttons, ...fields };
};
