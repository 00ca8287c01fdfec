/** Longest description returned by {@link describeNode}, like web-vitals' own selectors. */
const MAX_DESCRIPTION_LENGTH = 100;
/** Classes shown per element: enough to recognise it, short enough to stay readable. */
const MAX_CLASSES = 2;

/** True for DOM nodes, including nodes of other frames (where `instanceof Node` is false). */
export function isDomNode(value: unknown): value is Node {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Node).nodeType === 'number' &&
    typeof (value as Node).nodeName === 'string'
  );
}

function describeElement(element: Element): string {
  let text = element.tagName.toLowerCase();
  if (element.id) text += `#${element.id}`;
  const classes = element.classList ? Array.from(element.classList).slice(0, MAX_CLASSES) : [];
  for (const name of classes) text += `.${name}`;
  return text;
}

/**
 * A short CSS-like description of a node, such as `main>div.card>button#buy`: the element and its ancestors up to
 * the nearest one with an id (or `body`), at most 100 characters. Text nodes are described by their parent element.
 */
export function describeNode(node: Node): string {
  let element: Element | null = node.nodeType === 1 ? (node as Element) : node.parentElement;
  const parts: string[] = [];
  let length = 0;
  while (element !== null) {
    const part = describeElement(element);
    if (parts.length > 0 && length + part.length + 1 > MAX_DESCRIPTION_LENGTH) break;
    parts.unshift(part);
    length += part.length + 1;
    if (element.id || element.tagName === 'BODY' || element.tagName === 'HTML') break;
    element = element.parentElement;
  }
  const description = parts.length > 0 ? parts.join('>') : node.nodeName.toLowerCase();
  return description.slice(0, MAX_DESCRIPTION_LENGTH);
}
