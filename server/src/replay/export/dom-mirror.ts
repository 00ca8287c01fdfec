import { isId, isObject, NodeType, readNode, type JsonObject } from './rrweb';

/** One node of the rebuilt DOM. Only what choosing a locator needs: tree, tag, attributes and text. */
export interface MirrorNode {
  id: number;
  type: number;
  tagName: string;
  attributes: Map<string, string>;
  text: string;
  /** A child of a shadow root: CSS child paths do not cross into it. */
  isShadow: boolean;
  parent: MirrorNode | undefined;
  children: MirrorNode[];
}

/**
 * The page's DOM as the recording saw it at one moment, rebuilt from rrweb's full snapshots and mutations the way
 * rrweb's replayer applies them (removes, then adds, then texts, then attributes), so that a click or an input can be
 * given a locator that matches the element it hit.
 */
export class DomMirror {
  private readonly nodes = new Map<number, MirrorNode>();
  private root: MirrorNode | undefined;

  /** Replaces the whole DOM with a full snapshot's `data.node`. */
  load(snapshot: unknown): void {
    this.nodes.clear();
    this.root = this.build(snapshot, undefined);
  }

  /** Applies an incremental Mutation event's data (`adds`, `removes`, `texts`, `attributes`). */
  applyMutation(data: JsonObject): void {
    for (const removal of objects(data.removes)) {
      if (isId(removal.id)) this.remove(removal.id);
    }
    this.applyAdds(objects(data.adds));
    for (const change of objects(data.texts)) {
      const node = isId(change.id) ? this.nodes.get(change.id) : undefined;
      if (node) node.text = typeof change.value === 'string' ? change.value : '';
    }
    for (const change of objects(data.attributes)) {
      const node = isId(change.id) ? this.nodes.get(change.id) : undefined;
      if (!node || !isObject(change.attributes)) continue;
      for (const [name, value] of Object.entries(change.attributes)) {
        if (typeof value === 'string') node.attributes.set(name, value);
        else if (value === null) node.attributes.delete(name);
        // An object is a style declaration diff: styles never choose a locator.
      }
    }
  }

  get(id: number): MirrorNode | undefined {
    return this.nodes.get(id);
  }

  /** Every element of the page, in document order. */
  *elements(): Generator<MirrorNode> {
    const stack = this.root ? [this.root] : [];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type === NodeType.Element) yield node;
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }

  /**
   * rrweb lists a node's later sibling (`nextId`) before the node itself, but a parent may come after its children
   * when a whole subtree moved: adds whose parent is not there yet are retried until a pass places nothing.
   */
  private applyAdds(adds: JsonObject[]): void {
    let pending = adds;
    while (pending.length > 0) {
      const waiting = pending.filter((add) => !this.add(add));
      if (waiting.length === pending.length) return;
      pending = waiting;
    }
  }

  /** Places one added node; false when its parent is unknown so far. */
  private add(add: JsonObject): boolean {
    const parent = isId(add.parentId) ? this.nodes.get(add.parentId) : undefined;
    if (!parent) return false;
    // A node that moved is removed and added again under its new parent.
    if (isObject(add.node) && isId(add.node.id)) this.remove(add.node.id);
    const node = this.build(add.node, parent);
    if (!node) return true;
    const next = isId(add.nextId) ? parent.children.findIndex((c) => c.id === add.nextId) : -1;
    const previous = isId(add.previousId) ? parent.children.findIndex((c) => c.id === add.previousId) : -1;
    if (next >= 0) parent.children.splice(next, 0, node);
    else if (previous >= 0) parent.children.splice(previous + 1, 0, node);
    else parent.children.push(node);
    return true;
  }

  private remove(id: number): void {
    const node = this.nodes.get(id);
    if (!node) return;
    if (node.parent) node.parent.children = node.parent.children.filter((c) => c !== node);
    const stack = [node];
    while (stack.length > 0) {
      const gone = stack.pop()!;
      this.nodes.delete(gone.id);
      stack.push(...gone.children);
    }
  }

  /** Builds a serialized subtree iteratively (a deep DOM must not overflow the stack); returns its root. */
  private build(raw: unknown, parent: MirrorNode | undefined): MirrorNode | undefined {
    const top = this.create(raw, parent);
    const stack = top ? [top] : [];
    while (stack.length > 0) {
      const { node, childNodes } = stack.pop()!;
      for (const child of childNodes) {
        const created = this.create(child, node);
        if (!created) continue;
        node.children.push(created.node);
        stack.push(created);
      }
    }
    return top?.node;
  }

  private create(
    raw: unknown,
    parent: MirrorNode | undefined,
  ): { node: MirrorNode; childNodes: unknown[] } | undefined {
    const s = readNode(raw);
    if (!s) return undefined;
    const node: MirrorNode = {
      id: s.id,
      type: s.type,
      tagName: s.tagName,
      attributes: s.attributes,
      text: s.textContent,
      isShadow: s.isShadow,
      parent,
      children: [],
    };
    this.nodes.set(node.id, node);
    return { node, childNodes: s.childNodes };
  }
}

const objects = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);
