/**
 * The parts of rrweb's recording format (rrweb 2.1, as `@rrweb/record` emits it) that the Playwright exporter reads.
 * The numbers are rrweb's `EventType`, `IncrementalSource`, `MouseInteractions` (@rrweb/types) and `NodeType`
 * (rrweb-snapshot). They are copied rather than imported because the server reads stored JSON written by browsers,
 * not rrweb objects: every field is checked here before use, so a malformed event is skipped instead of trusted.
 */

export const EventType = { FullSnapshot: 2, IncrementalSnapshot: 3, Meta: 4, Custom: 5 } as const;
export const IncrementalSource = { Mutation: 0, MouseInteraction: 2, Input: 5 } as const;
export const MouseInteraction = { Click: 2 } as const;
export const NodeType = { Document: 0, Element: 2, Text: 3 } as const;

/** A stored rrweb event: its type, time and untyped data. */
export interface RecordedEvent {
  type: number;
  timestamp: number;
  data: Record<string, unknown>;
}

/** A serialized DOM node of a full snapshot or a mutation (rrweb-snapshot `serializedNodeWithId`), checked. */
export interface SerializedNode {
  id: number;
  type: number;
  /** Elements: tag name, lower case. */
  tagName: string;
  /** Elements: attribute values as text (`true` becomes ''; rrweb's own `rr_*` and `_cssText` stay). */
  attributes: Map<string, string>;
  /** Text nodes: the text, already masked by the recorder where it had to be. */
  textContent: string;
  /** The node is a child of a shadow root. */
  isShadow: boolean;
  childNodes: unknown[];
}

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isId = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The event, when `raw` has the shape every rrweb event has. */
export function readEvent(raw: unknown): RecordedEvent | undefined {
  if (!isObject(raw) || typeof raw.type !== 'number' || typeof raw.timestamp !== 'number' || !isObject(raw.data))
    return undefined;
  return { type: raw.type, timestamp: raw.timestamp, data: raw.data };
}

/** A serialized node, when `raw` is one; its children are read by the caller, one level at a time. */
export function readNode(raw: unknown): SerializedNode | undefined {
  if (!isObject(raw) || !isId(raw.id) || typeof raw.type !== 'number') return undefined;
  const attributes = new Map<string, string>();
  if (isObject(raw.attributes)) {
    for (const [name, value] of Object.entries(raw.attributes)) {
      if (typeof value === 'string') attributes.set(name, value);
      else if (typeof value === 'number') attributes.set(name, String(value));
      else if (value === true) attributes.set(name, '');
    }
  }
  return {
    id: raw.id,
    type: raw.type,
    tagName: typeof raw.tagName === 'string' ? raw.tagName.toLowerCase() : '',
    attributes,
    textContent: typeof raw.textContent === 'string' ? raw.textContent : '',
    isShadow: raw.isShadow === true,
    childNodes: Array.isArray(raw.childNodes) ? raw.childNodes : [],
  };
}
