import { recordableValue, type PrivacyHelpers } from './privacy';

/**
 * The part of rrweb's serialized node (rrweb-snapshot `serializedNodeWithId`) that carries form values. Declared
 * here so that the recorder does not depend on rrweb's internal type packages.
 */
export interface SerializedNode {
  readonly type: number;
  readonly id: number;
  readonly tagName?: string;
  readonly attributes?: Record<string, unknown>;
  readonly childNodes?: readonly SerializedNode[];
  textContent?: string;
}

/** rrweb-snapshot `NodeType` values. */
const ELEMENT_NODE = 2;
const TEXT_NODE = 3;
const FIELD_TAGS = new Set(['input', 'textarea', 'select']);
/** Inputs whose `value` is a fixed label or choice set by the page, not something the user entered (rrweb's list). */
const FIXED_VALUE_TYPES = new Set(['submit', 'button', 'reset', 'image', 'checkbox', 'radio']);

/**
 * Second line of defence for form values in serialized DOM (full snapshots and added nodes). rrweb asks `maskInputFn`
 * about a field's current value, but copies attributes as they are: a field whose `value` attribute holds a secret
 * while its current value is empty (cleared by the user or a script) is serialized with that attribute unmasked, and
 * an empty `<textarea>` with its default text as a child text node. Every field `isMasked` selects gets both
 * replaced with the mask. Fields already masked stay masked (masking is idempotent).
 */
export function maskSerializedFields(
  root: SerializedNode,
  isMasked: (id: number) => boolean,
  shared: PrivacyHelpers,
): void {
  const stack: SerializedNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type !== ELEMENT_NODE || !FIELD_TAGS.has(node.tagName || '')) {
      // A loop, not push(...children): spreading a node with very many children would overflow the call stack.
      for (const child of node.childNodes || []) stack.push(child);
      continue;
    }
    const attributes = node.attributes;
    const type = attributes?.type;
    if (FIXED_VALUE_TYPES.has(String(type ?? '').toLowerCase()) || !isMasked(node.id)) continue;
    if (attributes && typeof attributes.value === 'string')
      attributes.value = recordableValue(attributes.value, true, shared);
    for (const child of node.childNodes || []) {
      if (child.type === TEXT_NODE && typeof child.textContent === 'string') {
        child.textContent = recordableValue(child.textContent, true, shared);
      }
    }
  }
}
