import type { NodeSnapshot } from './format';

type ElementSnapshot = [string, Record<string, string>, ...NodeSnapshot[]];
/** Where a node is written out literally: [snapshot index, post-order node index]. */
type Location = [number, number];

/**
 * Replaces subtrees that are unchanged since the previous snapshot of the
 * frame with the viewer's back-reference `[[snapshotsAgo, nodeIndex]]`, so a
 * trace of N actions does not store the page 3N times. The viewer resolves
 * `nodeIndex` against the literal nodes of the referenced snapshot, counted
 * in post-order (children before their element, text nodes included,
 * references not counted), which is the numbering used here.
 *
 * Snapshots must be encoded in the order they are written to trace.trace,
 * one encoder per frame.
 */
export class SubtreeReferencer {
  /** Structural key -> id; equal ids mean equal subtrees. */
  private readonly ids = new Map<string, number>();
  /** Every node of the previous snapshot (expanded), by id. */
  private previous = new Map<number, Location>();
  private snapshotCount = 0;

  encode(html: NodeSnapshot): NodeSnapshot {
    const index = this.snapshotCount++;
    const childIds = new Map<ElementSnapshot, number[]>();
    const rootId = this.identify(html, childIds);
    const located = new Map<number, Location>();
    let literalCount = 0;

    const copyLocations = (node: NodeSnapshot, id: number) => {
      const at = this.previous.get(id);
      if (at) located.set(id, at);
      if (typeof node === 'string') return;
      const ids = childIds.get(node as ElementSnapshot)!;
      (node as ElementSnapshot).slice(2).forEach((child, i) => copyLocations(child as NodeSnapshot, ids[i]));
    };

    const emit = (node: NodeSnapshot, id: number): NodeSnapshot => {
      if (typeof node === 'string') {
        located.set(id, [index, literalCount++]);
        return node;
      }
      const at = this.previous.get(id);
      if (at) {
        copyLocations(node, id);
        return [[index - at[0], at[1]]] as unknown as NodeSnapshot;
      }
      const element = node as ElementSnapshot;
      const ids = childIds.get(element)!;
      const children = element.slice(2).map((child, i) => emit(child as NodeSnapshot, ids[i]));
      located.set(id, [index, literalCount++]);
      return [element[0], element[1], ...children] as ElementSnapshot;
    };

    const encoded = emit(html, rootId);
    this.previous = located;
    return encoded;
  }

  private identify(node: NodeSnapshot, childIds: Map<ElementSnapshot, number[]>): number {
    let key: string;
    if (typeof node === 'string') {
      key = 't' + node;
    } else {
      const element = node as ElementSnapshot;
      const ids = element.slice(2).map((child) => this.identify(child as NodeSnapshot, childIds));
      childIds.set(element, ids);
      key = 'e' + element[0] + '\u0000' + JSON.stringify(element[1]) + '\u0000' + ids.join(',');
    }
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    return id;
  }
}
