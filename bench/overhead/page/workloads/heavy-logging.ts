/**
 * Workload `heavy-logging`: a page that logs heavily while it works. "Process" handles a batch of `BATCH` orders:
 * `console.info` with an object per order (nested fields and an array), `console.warn` with an object every 10th,
 * `console.error` with an `Error` and an object every 50th, `console.log` of a summary at the end, and renders a line
 * per 10 orders.
 */
import { element, noise, type StartWorkload } from '../kit';

export const BATCH = 150;

export const startHeavyLogging: StartWorkload = ({ settle }) => {
  const button = element('button', { id: 'process', type: 'button' }, 'Process');
  const output = element('ol', { id: 'output' });
  document.body.append(button, output);
  let batches = 0;

  button.addEventListener('click', () => {
    batches += 1;
    const lines: HTMLElement[] = [];
    let total = 0;
    for (let i = 0; i < BATCH; i++) {
      const id = batches * BATCH + i;
      const order = {
        id,
        sku: `SKU-${(id * 7919) % 100_000}`,
        quantity: 1 + (id % 5),
        price: Math.round(noise(id) * 10_000) / 100,
        tags: ['web', id % 2 ? 'member' : 'guest', id % 3 ? 'standard' : 'express'],
        customer: { country: ['DE', 'FR', 'US', 'JP'][id % 4], returning: id % 7 === 0 },
      };
      total += order.price * order.quantity;
      console.info('order processed', order);
      if (i % 10 === 9) {
        console.warn('slow order', { id, ms: Math.round(noise(id + 0.5) * 900), step: 'pricing' });
        lines.push(element('li', {}, `${i + 1} orders, ${total.toFixed(2)}`));
      }
      if (i % 50 === 49) console.error(new Error(`payment declined for order ${id}`), { id, code: 'card_declined' });
    }
    console.log('batch done', { batch: batches, orders: BATCH, total: Math.round(total) });
    output.replaceChildren(...lines);
    settle();
  });

  return { process: button, output };
};
