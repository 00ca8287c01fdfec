/**
 * Workload `data-grid`: a trading-style grid that re-renders large subtrees. 150 rows × 6 columns (about 2,000
 * nodes) in a `<tbody>` that is replaced whole on every update, as a grid without keyed rows re-renders:
 *
 * - "Stream": `STREAM_TICKS` updates 80 ms apart (fresh prices in every cell), tracked until the last;
 * - a column header: sorts by that column and re-renders;
 * - typing in "Filter": re-renders the rows whose symbol contains the text, on every key press.
 */
import { delay, element, noise, type StartWorkload } from '../kit';

const ROWS = 150;
const COLUMNS = ['symbol', 'bid', 'ask', 'last', 'change', 'volume'] as const;
const STREAM_EVERY_MS = 80;
export const STREAM_TICKS = 20;

type Row = Record<(typeof COLUMNS)[number], string | number>;

export const startDataGrid: StartWorkload = ({ track, settle }) => {
  let tick = 0;
  let sortBy: (typeof COLUMNS)[number] = 'symbol';
  const filter = element('input', { id: 'filter', placeholder: 'Filter symbols' });
  const stream = element('button', { id: 'stream', type: 'button' }, 'Stream');
  const table = element('table', { id: 'grid' });
  const head = element('tr');
  const headers = Object.fromEntries(
    COLUMNS.map((column) => [column, element('th', { 'data-column': column }, column)]),
  );
  head.append(...Object.values(headers));
  table.append(element('thead'), element('tbody'));
  table.tHead!.append(head);
  document.body.append(stream, filter, table);

  const rows = (): Row[] =>
    Array.from({ length: ROWS }, (_, i) => {
      const price = 10 + noise(i) * 490 + noise(tick * ROWS + i) * 2;
      return {
        symbol: `S${(i * 7919) % 10007}`,
        bid: price.toFixed(2),
        ask: (price + 0.05).toFixed(2),
        last: (price + 0.02).toFixed(2),
        change: `${((noise(tick + i) - 0.5) * 4).toFixed(2)} %`,
        volume: Math.round(noise(i * 31 + tick) * 1e6),
      };
    });
  const render = (): void => {
    const shown = rows()
      .filter((row) => String(row.symbol).includes(filter.value.toUpperCase()))
      .sort((a, b) => (a[sortBy] < b[sortBy] ? -1 : a[sortBy] > b[sortBy] ? 1 : 0));
    const body = element('tbody');
    for (const row of shown) {
      const tr = element('tr', { 'data-symbol': String(row.symbol) });
      for (const column of COLUMNS) tr.append(element('td', { class: column }, String(row[column])));
      body.append(tr);
    }
    table.tBodies[0]!.replaceWith(body);
  };
  render();

  stream.addEventListener('click', () => {
    void track(async () => {
      for (let n = 0; n < STREAM_TICKS; n++) {
        tick += 1;
        render();
        await delay(STREAM_EVERY_MS);
      }
    });
  });
  for (const column of COLUMNS)
    headers[column]!.addEventListener('click', () => {
      sortBy = column;
      render();
      settle();
    });
  filter.addEventListener('input', render);

  return {
    stream,
    filter,
    sortBid: headers.bid!,
    sortVolume: headers.volume!,
    sortSymbol: headers.symbol!,
    grid: table,
  };
};
