/** rrweb events and DOM nodes as a recorder writes them, for suites that post a replay. */
export type RrwebEvent = { type: number; timestamp: number; data: Record<string, unknown> };
export type DomNode = Record<string, unknown>;

export const el = (
  id: number,
  tagName: string,
  attributes: Record<string, string>,
  ...childNodes: DomNode[]
): DomNode => ({ type: 2, id, tagName, attributes, childNodes });
export const txt = (id: number, textContent: string): DomNode => ({ type: 3, id, textContent });

/** rrweb's Meta then full snapshot of a page whose body holds `children`. */
export const pageLoad = (href: string, at: number, ...children: DomNode[]): RrwebEvent[] => [
  { type: 4, timestamp: at, data: { href, width: 1280, height: 720 } },
  {
    type: 2,
    timestamp: at + 1,
    data: {
      initialOffset: { top: 0, left: 0 },
      node: { type: 0, id: 1, childNodes: [el(2, 'html', {}, el(3, 'body', {}, ...children))] },
    },
  },
];
export const click = (id: number, at: number): RrwebEvent => ({
  type: 3,
  timestamp: at,
  data: { source: 2, type: 2, id, x: 5, y: 5 },
});
