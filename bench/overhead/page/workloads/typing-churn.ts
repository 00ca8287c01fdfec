/**
 * Workload `typing-churn`: the page issue 35 measured from outside. A sign-in form (e-mail and password) beside a
 * live panel that replaces a few hundred nodes many times a second, while the user types, moves the mouse and clicks:
 *
 * - "Live" starts the panel: 60 rows (300 nodes) replaced every 40 ms, `LIVE_TICKS` times (a fixed count, so every
 *   variant does the same work however long the input takes), tracked until the last tick;
 * - typing: an `input` listener rates the password and checks the e-mail, updating two labels;
 * - "Search": `console.info` with an object, GET /api/items (JSON), 50 rows rendered, `console.log` of the result;
 * - "Next": `history.pushState` to another route, `console.debug`;
 * - every 25th tick `console.warn` with an object (a late frame, as a live app reports).
 */
import { delay, element, noise, type StartWorkload } from '../kit';

const LIVE_ROWS = 60;
const LIVE_EVERY_MS = 40;
export const LIVE_TICKS = 150;

export const startTypingChurn: StartWorkload = ({ base, track, settle }) => {
  const email = element('input', { id: 'email', name: 'email', type: 'email', placeholder: 'E-mail' });
  const password = element('input', { id: 'password', name: 'password', type: 'password', placeholder: 'Password' });
  const strength = element('span', { id: 'strength' }, 'empty');
  const valid = element('span', { id: 'valid' }, '');
  const form = element('form', { id: 'sign-in' });
  form.append(email, password, strength, valid);
  const buttons = {
    live: element('button', { id: 'live', type: 'button' }, 'Live'),
    search: element('button', { id: 'search', type: 'button' }, 'Search'),
    next: element('button', { id: 'next', type: 'button' }, 'Next'),
  };
  const toolbar = element('div', { id: 'toolbar' });
  toolbar.append(...Object.values(buttons));
  const results = element('ul', { id: 'results' });
  const panel = element('div', { id: 'panel', style: 'min-height: 600px' });
  document.body.append(toolbar, form, results, panel);

  form.addEventListener('input', () => {
    const score = new Set(password.value).size + (/[^a-z]/i.test(password.value) ? 4 : 0);
    strength.textContent = score > 10 ? 'strong' : score > 5 ? 'fair' : 'weak';
    valid.textContent = email.validity.valid ? '' : 'check the address';
  });

  let tick = 0;
  const rows = (): HTMLElement[] =>
    Array.from({ length: LIVE_ROWS }, (_, i) => {
      const row = element('div', { class: 'tick' });
      const value = noise(tick * LIVE_ROWS + i);
      row.append(
        element('b', {}, `#${i}`),
        element('span', { class: value > 0.5 ? 'up' : 'down' }, (value * 1000).toFixed(2)),
      );
      return row;
    });
  buttons.live.addEventListener('click', () => {
    void track(async () => {
      for (let n = 0; n < LIVE_TICKS; n++) {
        tick += 1;
        panel.replaceChildren(...rows());
        if (tick % 25 === 0) console.warn('late frame', { tick, rows: LIVE_ROWS, lagMs: Math.round(noise(tick) * 90) });
        await delay(LIVE_EVERY_MS);
      }
    });
  });

  let searches = 0;
  buttons.search.addEventListener('click', () => {
    searches += 1;
    const query = { page: searches, q: email.value.split('@')[0] ?? '' };
    console.info('search', query);
    void track(async () => {
      const response = await fetch(`/api/items?page=${searches}`);
      const items = (await response.json()) as Array<{ id: number; name: string; price: number }>;
      results.replaceChildren(...items.map((item) => element('li', { 'data-id': String(item.id) }, item.name)));
      console.log('results', { count: items.length, first: items[0] });
    });
  });

  let pages = 0;
  buttons.next.addEventListener('click', () => {
    pages += 1;
    history.pushState({ page: pages }, '', `${base}account/${pages}`);
    document.title = `Account, step ${pages}`;
    console.debug('navigated', { page: pages });
    settle();
  });

  return { ...buttons, email, password, panel };
};
