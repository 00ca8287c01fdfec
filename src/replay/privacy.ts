import type { SharedHelpers } from './shared-helpers';

/**
 * Which recorded form values are secrets (DESIGN fact 7). The decision is made from plain facts about a field, so it
 * can be tested without a DOM; {@link fieldFacts} reads those facts from a live element. Only the recorder imports
 * this module, so it travels in the lazily loaded recorder chunk; what it shares with the initial chunk
 * (`looksSensitive` and `MASK`) is handed in by the recorder's loader instead of imported (`shared` of the functions
 * below): shared-helpers.ts says why.
 */

export type PrivacyHelpers = Pick<SharedHelpers, 'looksSensitive_' | 'mask_'>;

/** What the decision looks at. Strings are as found in the DOM (any case); absent ones are empty. */
export interface FieldFacts {
  /** The input's type, lower case; `password` also for a field that was a password field (a "show" toggle). */
  readonly type: string;
  readonly name: string;
  readonly id: string;
  readonly autocomplete: string;
  /** Texts that describe the field to a user: its labels, `aria-label`, `aria-labelledby` targets, placeholder. */
  readonly descriptions: readonly string[];
  /** The field is inside an element with the mask-text class (`replay.maskTextClass`). */
  readonly insideMaskedText: boolean;
}

/** Input types whose value is always personal or secret. `hidden` fields carry CSRF tokens, ids and state. */
const SENSITIVE_TYPES = new Set(['password', 'email', 'tel', 'hidden']);

/**
 * `autocomplete` tokens (HTML "autofill detail tokens") naming payment data, passwords, one-time codes and contact
 * details: `cc-number`, `cc-csc`, `current-password`, `new-password`, `one-time-code`, `email`, `tel-national`...
 */
const SENSITIVE_AUTOCOMPLETE = /^(cc-.*|.*-password|one-time-code|email|tel(-.*)?)$/;

/** Longest description looked at: enough for any label, bounded for pages that put paragraphs in labels. */
const MAX_DESCRIPTION_CHARS = 200;

/** True when a field's value must never be recorded, whatever `maskAllInputs` and the classes say. */
export function isSensitiveField(field: FieldFacts, shared: PrivacyHelpers): boolean {
  if (SENSITIVE_TYPES.has(field.type) || field.insideMaskedText) return true;
  if (
    field.autocomplete
      .toLowerCase()
      .split(/\s+/)
      .some((token) => SENSITIVE_AUTOCOMPLETE.test(token))
  )
    return true;
  const { looksSensitive_: looksSensitive } = shared;
  return (
    looksSensitive(field.name) ||
    looksSensitive(field.id) ||
    field.descriptions.some((text) => looksSensitive(text.slice(0, MAX_DESCRIPTION_CHARS)))
  );
}

/**
 * The value as it may be recorded: `MASK` for a sensitive field or when every input is masked, the text itself
 * otherwise. An empty value stays empty: it tells nothing, and a masked empty field would look filled in on replay.
 */
export function recordableValue(text: string, masked: boolean, shared: PrivacyHelpers): string {
  return masked && text !== '' ? shared.mask_ : text;
}

/** Text inside a mask-text element: `MASK`, whatever its length; whitespace (layout only) stays as it is. */
export function maskText(text: string, shared: PrivacyHelpers): string {
  return text.trim() === '' ? text : shared.mask_;
}

/** rrweb marks a field that was `type="password"` before a script changed its type (a "show password" button). */
const WAS_PASSWORD_ATTRIBUTE = 'data-rr-is-password';

/** The facts of a live form field. `maskTextClass` is a class name without the dot. */
export function fieldFacts(element: Element, maskTextClass: string): FieldFacts {
  const attribute = (name: string): string => element.getAttribute(name) || '';
  const descriptions = [attribute('aria-label'), attribute('placeholder')];
  const labels = (element as Partial<HTMLInputElement>).labels;
  if (labels) for (const label of Array.from(labels)) descriptions.push(label.textContent || '');
  for (const id of attribute('aria-labelledby').split(/\s+/)) {
    if (id === '') continue;
    const labelling = element.ownerDocument.getElementById(id);
    descriptions.push((labelling && labelling.textContent) || '');
  }
  return {
    type: element.hasAttribute(WAS_PASSWORD_ATTRIBUTE) ? 'password' : attribute('type').toLowerCase(),
    name: attribute('name'),
    id: element.id,
    autocomplete: attribute('autocomplete'),
    descriptions,
    insideMaskedText: maskTextClass !== '' && element.closest(`.${cssEscape(maskTextClass)}`) !== null,
  };
}

function cssEscape(name: string): string {
  return typeof CSS !== 'undefined' && typeof CSS.escape === 'function'
    ? CSS.escape(name)
    : name.replace(/[^\w-]/g, '\\$&');
}
