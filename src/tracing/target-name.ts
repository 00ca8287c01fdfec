/** Longest name sent: a button's or a link's label, not a paragraph. */
const MAX_NAME_CHARS = 64;

/** What a person clicks: a click on an icon inside a button is a click on the button. */
const ACTIONABLE =
  'button, a[href], summary, [role="button"], [role="link"], [role="menuitem"], [role="tab"], [role="option"], input[type="submit"], input[type="button"], input[type="reset"]';

/** The app's own name for an element, which wins over anything read from the page. */
export const NAME_ATTRIBUTE = 'data-svc-name';

const bounded = (text: string | null | undefined): string | undefined => {
  const clean = text?.replace(/\s+/g, ' ').trim();
  if (!clean) return undefined;
  return clean.length > MAX_NAME_CHARS ? `${clean.slice(0, MAX_NAME_CHARS - 1)}…` : clean;
};

/**
 * The name of what a click or submit was on, as the trace list shows it ("click on Pay"): the app's `data-svc-name`,
 * else the actionable element's `aria-label`, its button value or its text, as a person reads it. Nothing for other
 * elements (a field's text is what the user typed) nor inside an element whose text replays mask (`maskTextClass`):
 * what a replay hides never leaves in a span either.
 */
export function targetName(target: Element, maskTextClass: string): string | undefined {
  const holder = target.closest(`[${NAME_ATTRIBUTE}]`);
  const named = holder?.getAttribute(NAME_ATTRIBUTE);
  if (named) return bounded(named);
  const element = target.closest(ACTIONABLE);
  if (element === null || element.closest(`.${CSS.escape(maskTextClass)}`) !== null) return undefined;
  const label = bounded(element.getAttribute('aria-label'));
  if (label) return label;
  if (element instanceof HTMLInputElement) return bounded(element.value);
  return bounded(element.textContent);
}
