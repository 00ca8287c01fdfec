/**
 * Workload `form-flow`: a checkout-like flow of four steps, each a form of several fields (text, e-mail, telephone,
 * a select, a checkbox, a text area) rendered in place of the previous one. "Continue" posts the step's values as JSON
 * (POST /api/step, the response a JSON echo with an id) and renders the next step on success; after the last step a
 * summary and "Start over". `console.info` per step, `console.warn` on an error response (the server rejects the
 * coupon `EXPIRED`, and the step stays).
 */
import { element, type StartWorkload } from '../kit';

interface Field {
  name: string;
  type: 'text' | 'email' | 'tel' | 'select' | 'checkbox' | 'textarea';
}

export const STEPS: ReadonlyArray<{ title: string; fields: Field[] }> = [
  {
    title: 'Contact',
    fields: [
      { name: 'fullName', type: 'text' },
      { name: 'email', type: 'email' },
      { name: 'phone', type: 'tel' },
      { name: 'newsletter', type: 'checkbox' },
    ],
  },
  {
    title: 'Address',
    fields: [
      { name: 'street', type: 'text' },
      { name: 'city', type: 'text' },
      { name: 'country', type: 'select' },
      { name: 'notes', type: 'textarea' },
    ],
  },
  {
    title: 'Delivery',
    fields: [
      { name: 'slot', type: 'select' },
      { name: 'instructions', type: 'textarea' },
      { name: 'gift', type: 'checkbox' },
    ],
  },
  {
    title: 'Payment',
    fields: [
      { name: 'cardName', type: 'text' },
      { name: 'coupon', type: 'text' },
      { name: 'terms', type: 'checkbox' },
    ],
  },
];

const OPTIONS = ['one', 'two', 'three', 'four', 'five'];

function input(field: Field): HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  if (field.type === 'select') {
    const select = element('select', { name: field.name, id: field.name });
    select.append(...OPTIONS.map((option) => element('option', { value: option }, `${field.name} ${option}`)));
    return select;
  }
  if (field.type === 'textarea') return element('textarea', { name: field.name, id: field.name, rows: '3' });
  return element('input', { name: field.name, id: field.name, type: field.type });
}

export const startFormFlow: StartWorkload = ({ track, settle }) => {
  const main = element('main', { id: 'flow' });
  const next = element('button', { id: 'continue', type: 'button' }, 'Continue');
  const status = element('p', { id: 'status' });
  document.body.append(main, next, status);
  let flow = 1;
  let step = 0;
  let form: HTMLFormElement;

  const render = (): void => {
    form = element('form', { id: 'step' });
    if (step < STEPS.length) {
      const { title, fields } = STEPS[step]!;
      form.append(element('h2', {}, `${step + 1}. ${title}`));
      for (const field of fields) {
        const label = element('label', { for: field.name }, field.name);
        const row = element('div', { class: 'field' });
        row.append(label, input(field), element('small', { class: 'hint' }, `Your ${field.name}`));
        form.append(row);
      }
    } else {
      form.append(element('h2', {}, 'Thank you'), element('p', {}, `Order ${flow} placed.`));
    }
    main.replaceChildren(form);
    next.textContent = step < STEPS.length ? 'Continue' : 'Start over';
  };
  render();

  next.addEventListener('click', () => {
    if (step === STEPS.length) {
      flow += 1;
      step = 0;
      render();
      settle();
      return;
    }
    const values: Record<string, string | boolean> = {};
    for (const field of form.elements as unknown as Iterable<HTMLInputElement>)
      if (field.name) values[field.name] = field.type === 'checkbox' ? field.checked : field.value;
    console.info('step submitted', { flow, step: STEPS[step]!.title });
    void track(async () => {
      const response = await fetch('/api/step', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ flow, step: step + 1, values }),
      });
      const answer = (await response.json()) as { id?: string; error?: string };
      if (!response.ok) {
        console.warn('step rejected', answer);
        status.textContent = answer.error ?? 'error';
        return;
      }
      status.textContent = `saved ${answer.id}`;
      step += 1;
      render();
    });
  });

  // The driver clicks fields by name; they change with the step, so each is found when the driver asks.
  const fieldNames = STEPS.flatMap((s) => s.fields.map((f) => f.name));
  const controls: Record<string, HTMLElement> = { continue: next };
  for (const name of fieldNames)
    Object.defineProperty(controls, name, {
      enumerable: true,
      get: () => form.querySelector(`[name="${name}"]`) ?? next,
    });
  return controls;
};
