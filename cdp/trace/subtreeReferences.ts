import type { NodeSnapshot } from './format';

type ElementSnapshot = [string, Record<string, string>, ...NodeSnapshot[]];
/** Where a subtree is written out literally: [snapshot index, post-order node index]. */
type Location = [number, number];

/**
 * Replaces element subtrees already written in an earlier snapshot of the
 * frame with the viewer's back-reference `[[snapshotsAgo, nodeIndex]]`, so a
 * trace of N actions does not store the page 3N times. The viewer resolves
 * `nodeIndex` against the literal nodes of the referenced snapshot, counted
 * in post-order (children before their element, text nodes included,
 * references not counted), which is the numbering used here.
 *
 * Subtrees are compared by content (interned structural ids), and a
 * snapshot's literal subtrees stay valid targets for every later snapshot,
 * so nothing is copied between snapshots.
 *
 * Snapshots must be encoded in the order they are written to trace.trace,
 * one encoder per frame.
 */
export class SubtreeReferencer {
  /** Structural key -> id; equal ids mean equal subtrees. */
  private readonly ids = new Map<string, number>();
  /** Element subtree id -> where it was first written literally. */
  private readonly locations = new Map<number, Location>();
  private snapshotCount = 0;

  encode(html: NodeSnapshot): NodeSnapshot {
    const index = this.snapshotCount++;
    const elementIds = new Map<ElementSnapshot, number>();
    this.identify(html, elementIds);
    const written: [number, Location][] = [];
    let literalCount = 0;

    const emit = (node: NodeSnapshot): NodeSnapshot => {
      if (typeof node === 'string') {
        literalCount++;
        return node;
      }
      const element = node as ElementSnapshot;
      const id = elementIds.get(element)!;
      const at = this.locations.get(id);
      if (at) return [[index - at[0], at[1]]] as unknown as NodeSnapshot;
      const out: NodeSnapshot[] = [element[0], element[1] as unknown as NodeSnapshot];
      for (let i = 2; i < element.length; i++) out.push(emit(element[i] as NodeSnapshot));
      written.push([id, [index, literalCount++]]);
      return out as unknown as NodeSnapshot;
    };

    const encoded = emit(html);
    // Only earlier snapshots are referenced, as in traces Playwright writes.
    for (const [id, at] of written) if (!this.locations.has(id)) this.locations.set(id, at);
    return encoded;
  }

  private identify(node: NodeSnapshot, elementIds: Map<ElementSnapshot, number>): number {
    let key: string;
    if (typeof node === 'string') {
      key = 't' + node;
    } else {
      const element = node as ElementSnapshot;
      key = 'e' + element[0];
      const attrs = element[1];
      // Length-prefixed, so no attribute text can make two keys collide.
      for (const name in attrs) {
        const value = attrs[name];
        key += name.length + ':' + name + value.length + ':' + value;
      }
      key += '|';
      for (let i = 2; i < element.length; i++) key += this.identify(element[i] as NodeSnapshot, elementIds) + ',';
    }
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(key, id);
    }
    if (typeof node !== 'string') elementIds.set(node as ElementSnapshot, id);
    return id;
  }
}
