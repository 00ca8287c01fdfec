/**
 * A V8 heap snapshot (the DevTools protocol's `HeapProfiler.takeHeapSnapshot`) read into a graph with retained
 * sizes: the dominator tree over every edge but weak ones (Cooper, Harvey and Kennedy's iterative algorithm on the
 * reverse postorder), as DevTools' "Retained size" column computes it, give or take its special cases.
 */
import type { CDPSession } from '@playwright/test';

/** The parts of the snapshot format used here (`snapshot.meta` describes the flat arrays). */
interface RawSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Takes a snapshot of the page behind `cdp` (after a garbage collection, as the protocol does) and reads it. */
export async function takeHeapSnapshot(cdp: CDPSession): Promise<HeapGraph> {
  const chunks: string[] = [];
  const onChunk = ({ chunk }: { chunk: string }) => chunks.push(chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  try {
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  } finally {
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  }
  return new HeapGraph(JSON.parse(chunks.join('')) as RawSnapshot);
}

/** A node is its index (0 is the root); edges are walked with `edges(node)`. */
export class HeapGraph {
  readonly nodeCount: number;
  /** Per node: its type (`object`, `closure`, `string`, `code`, `hidden`...), name and own size, bytes. */
  readonly type: string[];
  readonly name: string[];
  readonly selfSize: Float64Array;
  /** Per node: its immediate dominator (the root's is itself) and the size it retains, bytes. */
  readonly dominator: Int32Array;
  readonly retained: Float64Array;
  /** The nodes in reverse postorder from the root: every node after its dominator; unreachable nodes left out. */
  readonly order: Int32Array;
  private readonly firstEdge: Int32Array;
  private readonly edgeType: string[];
  private readonly edgeName: string[];
  private readonly edgeTo: Int32Array;

  constructor(raw: RawSnapshot) {
    const { meta } = raw.snapshot;
    const nodeFields = meta.node_fields.length;
    const edgeFields = meta.edge_fields.length;
    const nf = (field: string) => meta.node_fields.indexOf(field);
    const ef = (field: string) => meta.edge_fields.indexOf(field);
    const [typeAt, nameAt, sizeAt, countAt] = [nf('type'), nf('name'), nf('self_size'), nf('edge_count')];
    const [edgeTypeAt, edgeNameAt, toAt] = [ef('type'), ef('name_or_index'), ef('to_node')];
    this.nodeCount = raw.nodes.length / nodeFields;
    this.type = [];
    this.name = [];
    this.selfSize = new Float64Array(this.nodeCount);
    this.firstEdge = new Int32Array(this.nodeCount + 1);
    for (let n = 0, e = 0; n < this.nodeCount; n++) {
      const at = n * nodeFields;
      this.type.push(meta.node_types[0][raw.nodes[at + typeAt]!]!);
      this.name.push(raw.strings[raw.nodes[at + nameAt]!]!);
      // Blink's own objects (DOM nodes and the like) are in the snapshot as `native` nodes, but not in the JS heap
      // that `JSHeapUsedSize` measures: counted as empty, so that sizes here compare with it.
      this.selfSize[n] = this.type[n] === 'native' ? 0 : raw.nodes[at + sizeAt]!;
      this.firstEdge[n] = e;
      e += raw.nodes[at + countAt]!;
      this.firstEdge[n + 1] = e;
    }
    const edgeCount = raw.edges.length / edgeFields;
    this.edgeType = [];
    this.edgeName = [];
    this.edgeTo = new Int32Array(edgeCount);
    for (let e = 0; e < edgeCount; e++) {
      const at = e * edgeFields;
      const type = meta.edge_types[0][raw.edges[at + edgeTypeAt]!]!;
      const nameOrIndex = raw.edges[at + edgeNameAt]!;
      this.edgeType.push(type);
      // Element and hidden edges carry an index, the others a string.
      this.edgeName.push(type === 'element' || type === 'hidden' ? String(nameOrIndex) : raw.strings[nameOrIndex]!);
      this.edgeTo[e] = raw.edges[at + toAt]! / nodeFields;
    }
    this.order = this.reversePostorder();
    this.dominator = this.dominators();
    this.retained = this.retainedSizes();
  }

  /** A node's outgoing edges: type, name (or index) and target. */
  *edges(node: number): Generator<{ type: string; name: string; to: number }> {
    for (let e = this.firstEdge[node]!; e < this.firstEdge[node + 1]!; e++)
      yield { type: this.edgeType[e]!, name: this.edgeName[e]!, to: this.edgeTo[e]! };
  }

  /** The target of `node`'s first edge named `name` (of `type`, when given). */
  edge(node: number, name: string, type?: string): number | undefined {
    for (const edge of this.edges(node)) if (edge.name === name && (!type || edge.type === type)) return edge.to;
    return undefined;
  }

  /** Total own size of the nodes reachable from the root, bytes. */
  get totalSize(): number {
    let total = 0;
    for (const node of this.order) total += this.selfSize[node]!;
    return total;
  }

  private strong(e: number): boolean {
    return this.edgeType[e] !== 'weak';
  }

  private reversePostorder(): Int32Array {
    const visited = new Uint8Array(this.nodeCount);
    const post: number[] = [];
    const stack: Array<[number, number]> = [[0, this.firstEdge[0]!]];
    visited[0] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [node, e] = top;
      if (e < this.firstEdge[node + 1]!) {
        top[1] = e + 1;
        const to = this.edgeTo[e]!;
        if (this.strong(e) && !visited[to]) {
          visited[to] = 1;
          stack.push([to, this.firstEdge[to]!]);
        }
      } else {
        stack.pop();
        post.push(node);
      }
    }
    return Int32Array.from(post.reverse());
  }

  private dominators(): Int32Array {
    const rank = new Int32Array(this.nodeCount).fill(-1);
    this.order.forEach((node, i) => (rank[node] = i));
    // Predecessors of each reachable node, over strong edges (CSR arrays).
    const predCount = new Int32Array(this.nodeCount + 1);
    for (const node of this.order)
      for (let e = this.firstEdge[node]!; e < this.firstEdge[node + 1]!; e++)
        if (this.strong(e)) predCount[this.edgeTo[e]! + 1]! += 1;
    for (let n = 0; n < this.nodeCount; n++) predCount[n + 1]! += predCount[n]!;
    const preds = new Int32Array(predCount[this.nodeCount]!);
    const fill = predCount.slice();
    for (const node of this.order)
      for (let e = this.firstEdge[node]!; e < this.firstEdge[node + 1]!; e++)
        if (this.strong(e)) preds[fill[this.edgeTo[e]!]!++] = node;

    const idom = new Int32Array(this.nodeCount).fill(-1);
    idom[0] = 0;
    const intersect = (a: number, b: number): number => {
      while (a !== b) {
        while (rank[a]! > rank[b]!) a = idom[a]!;
        while (rank[b]! > rank[a]!) b = idom[b]!;
      }
      return a;
    };
    for (let changed = true; changed; ) {
      changed = false;
      for (let i = 1; i < this.order.length; i++) {
        const node = this.order[i]!;
        let candidate = -1;
        for (let p = predCount[node]!; p < predCount[node + 1]!; p++) {
          const pred = preds[p]!;
          if (idom[pred] === -1) continue;
          candidate = candidate === -1 ? pred : intersect(pred, candidate);
        }
        if (candidate !== -1 && idom[node] !== candidate) {
          idom[node] = candidate;
          changed = true;
        }
      }
    }
    return idom;
  }

  private retainedSizes(): Float64Array {
    const retained = new Float64Array(this.nodeCount);
    for (let i = this.order.length - 1; i >= 0; i--) {
      const node = this.order[i]!;
      retained[node]! += this.selfSize[node]!;
      if (node !== 0) retained[this.dominator[node]!]! += retained[node]!;
    }
    return retained;
  }
}
