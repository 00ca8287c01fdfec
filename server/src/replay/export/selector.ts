import { MASK } from '../../../../wire/replay';
import type { DomMirror, MirrorNode } from './dom-mirror';
import { NodeType } from './rrweb';

/** How the exported test finds an element, in order of preference. */
export type Locator =
  | { by: 'testId'; value: string }
  | { by: 'css'; value: string }
  | { by: 'role'; role: 'button' | 'link'; name: string };

export type Located = { locator: Locator; element: MirrorNode } | { skipped: string };

/** Elements a click on an inner node is meant for: a click on a button's icon is a click on the button. */
const INTERACTIVE_TAGS = new Set(['button', 'a', 'input', 'select', 'textarea', 'label', 'summary']);
const INTERACTIVE_ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'option']);
/** Inline elements whose text is all a button or link name is made of; anything else (icons, images) may add to it. */
const TEXT_ONLY_TAGS = new Set(['span', 'b', 'strong', 'em', 'i', 'small', 'code', 'br', 'wbr', 'mark', 's', 'u']);
const BUTTON_INPUT_TYPES = new Set(['button', 'submit', 'reset']);
const CSS_IDENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const TAG_NAME = /^[a-z][a-z0-9-]*$/;

/** The locator for the element a click hit, or why there is none. */
export function locateClick(mirror: DomMirror, id: number): Located {
  const node = mirror.get(id);
  if (!node) return { skipped: `node ${id} is not in the recorded DOM` };
  const element = node.type === NodeType.Element ? node : node.parent;
  if (!element || element.type !== NodeType.Element) return { skipped: `node ${id} is not an element` };
  return locateElement(mirror, interactiveAncestor(element) ?? element);
}

/** The locator for a form field (the target of an input event), or why there is none. */
export function locateField(mirror: DomMirror, id: number): Located {
  const node = mirror.get(id);
  if (!node || node.type !== NodeType.Element) return { skipped: `field ${id} is not in the recorded DOM` };
  return locateElement(mirror, node);
}

/** `<button> "Save"`, `<input name="email">`: what a comment calls an element. */
export function describeElement(element: MirrorNode): string {
  const attr = ['data-testid', 'id', 'name', 'type'].find((a) => element.attributes.has(a));
  const shown = attr ? ` ${attr}="${element.attributes.get(attr)}"` : '';
  const name = accessibleName(element);
  return `<${element.tagName}${shown}>${name ? ` "${name}"` : ''}`;
}

/** The `type` of an input element, lower case; `text` when it has none. */
export const inputType = (element: MirrorNode): string => (element.attributes.get('type') ?? 'text').toLowerCase();

function interactiveAncestor(element: MirrorNode): MirrorNode | undefined {
  for (let node: MirrorNode | undefined = element; node && node.type === NodeType.Element; node = node.parent) {
    const role = explicitRole(node);
    if (
      role !== undefined
        ? INTERACTIVE_ROLES.has(role)
        : INTERACTIVE_TAGS.has(node.tagName) && (node.tagName !== 'a' || node.attributes.has('href'))
    ) {
      return node;
    }
  }
  return undefined;
}

function locateElement(mirror: DomMirror, element: MirrorNode): Located {
  if (insideFrame(element)) return { skipped: `${describeElement(element)} is inside an iframe` };
  const unique = (matches: (e: MirrorNode) => boolean): boolean => countUpTo2(mirror, matches) === 1;

  const testId = element.attributes.get('data-testid');
  if (testId && unique((e) => e.attributes.get('data-testid') === testId))
    return { element, locator: { by: 'testId', value: testId } };
  const id = element.attributes.get('id');
  if (id && unique((e) => e.attributes.get('id') === id))
    return { element, locator: { by: 'css', value: idSelector(id) } };
  const role = buttonOrLink(element);
  const name = accessibleName(element);
  if (role && name && unique((e) => buttonOrLink(e) === role && accessibleName(e) === name)) {
    return { element, locator: { by: 'role', role, name } };
  }
  const path = cssPath(element, (e) => {
    const eid = e.attributes.get('id');
    return eid !== undefined && eid !== '' && unique((o) => o.attributes.get('id') === eid);
  });
  if (path) return { element, locator: { by: 'css', value: path } };
  return { skipped: `${describeElement(element)} has no test id, id, usable name or CSS path (shadow DOM?)` };
}

function countUpTo2(mirror: DomMirror, matches: (e: MirrorNode) => boolean): number {
  let n = 0;
  for (const e of mirror.elements()) {
    if (matches(e) && ++n === 2) break;
  }
  return n;
}

function insideFrame(element: MirrorNode): boolean {
  for (let node = element.parent; node; node = node.parent) {
    if (node.type === NodeType.Document && node.parent !== undefined) return true;
  }
  return false;
}

const explicitRole = (e: MirrorNode): string | undefined =>
  e.attributes.get('role')?.trim().split(/\s+/)[0] || undefined;

function buttonOrLink(e: MirrorNode): 'button' | 'link' | undefined {
  const role = explicitRole(e);
  if (role !== undefined) return role === 'button' || role === 'link' ? role : undefined;
  if (e.tagName === 'button' || (e.tagName === 'input' && BUTTON_INPUT_TYPES.has(inputType(e)))) return 'button';
  if ((e.tagName === 'a' || e.tagName === 'area') && e.attributes.has('href')) return 'link';
  return undefined;
}

/**
 * The accessible name Playwright will compute, when it can be told for sure from the recording: `aria-label`, the
 * value of an input button, or plain text content. Undefined when it holds masked text or depends on what the
 * recording cannot tell (labelled-by references, icons, hidden parts).
 */
function accessibleName(e: MirrorNode): string | undefined {
  const label = e.attributes.get('aria-label');
  let name: string | undefined;
  if (label !== undefined && label.trim() !== '') name = label;
  else if (e.attributes.has('aria-labelledby')) name = undefined;
  else if (e.tagName === 'input') name = e.attributes.get('value');
  else name = plainText(e);
  const normalized = name?.replace(/\s+/g, ' ').trim();
  return normalized && !normalized.includes(MASK) ? normalized : undefined;
}

function plainText(e: MirrorNode): string | undefined {
  let text = '';
  for (const child of e.children) {
    if (child.type === NodeType.Text) text += child.text;
    else if (child.type === NodeType.Element) {
      if (
        !TEXT_ONLY_TAGS.has(child.tagName) ||
        child.attributes.has('aria-hidden') ||
        child.attributes.has('hidden') ||
        child.attributes.has('aria-label')
      ) {
        return undefined;
      }
      const inner = plainText(child);
      if (inner === undefined) return undefined;
      text += child.tagName === 'br' ? ' ' : inner;
    }
  }
  return text;
}

function idSelector(id: string): string {
  return CSS_IDENT.test(id) ? `#${id}` : `[id="${id.replace(/["\\]/g, '\\$&')}"]`;
}

/**
 * `body > main > section:nth-of-type(2) > button`: a child path from the nearest ancestor with a unique id (or body),
 * with `:nth-of-type` wherever siblings share the tag. Undefined inside a shadow root, which child paths cannot enter.
 */
function cssPath(element: MirrorNode, hasUniqueId: (e: MirrorNode) => boolean): string | undefined {
  const parts: string[] = [];
  for (let node: MirrorNode | undefined = element; node; node = node.parent) {
    if (node.type !== NodeType.Element || node.isShadow || !TAG_NAME.test(node.tagName)) return undefined;
    if (node !== element && hasUniqueId(node)) {
      parts.unshift(idSelector(node.attributes.get('id')!));
      break;
    }
    if (node.tagName === 'body' || node.tagName === 'html') {
      parts.unshift(node.tagName);
      break;
    }
    const tag = node.tagName;
    const siblings = node.parent?.children.filter((c) => c.type === NodeType.Element && c.tagName === tag) ?? [];
    parts.unshift(siblings.length > 1 ? `${tag}:nth-of-type(${siblings.indexOf(node) + 1})` : tag);
  }
  return parts.length > 0 ? parts.join(' > ') : undefined;
}
