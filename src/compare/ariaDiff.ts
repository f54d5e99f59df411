/**
 * Structural diff of two aria snapshots (Playwright's YAML-like text, read by
 * cdp/aria/yaml.ts, the reader beside the writer): which nodes were added,
 * removed, changed (role, name, states, text, /url and other properties) or
 * moved (the same node under another parent, or in another order), each with
 * its ancestor path (`main > form "Subscribe" > button "Send"`). Not a line
 * diff: a node that moved is one entry, and an added subtree is one entry.
 *
 * Matching, top-down from the two roots:
 *   1. siblings are aligned in order (patience-style, ariaAlign.ts) by role
 *      and name, or for a nameless node by role and its children's roles,
 *      names and text; identical subtrees are matched whole;
 *   2. what stays unmatched between two aligned siblings is paired by
 *      similarity, in order: the same role and name (content changed), the
 *      same role (name changed: paired when similar, or when it is the only
 *      one of its role there), the same name (role changed), text with text;
 *   3. matched pairs recurse into their children;
 *   4. nodes left over on both sides are matched across the whole tree, as
 *      moves: by identical subtree first, then by strong key, then by role
 *      and name (never for a nameless container, whose role alone says
 *      nothing), nearest position first.
 * Everything iterates in document order, so the result is deterministic.
 */
import * as fs from 'fs';
import { parseAriaYaml, type AriaLine } from '../../cdp/aria/yaml';
import { envelopeTree } from '../contract/captureTypes/a11yTree';
import { alignSequences, pairByScore } from './ariaAlign';

export type AriaNodeKind = 'node' | 'text' | 'raw';

/** One node as the diff reports it. */
export interface AriaNodeSummary {
  kind: AriaNodeKind;
  /** The role (`text` for a text run, '' for an unreadable line). */
  role: string;
  name: string | null;
  /** As written between brackets: `checked`, `level=2`. */
  states: string[];
  /** `/url`, `/placeholder`… without the slash. */
  props: Record<string, string>;
  /** A text run's text, or an unreadable line as written; null for nodes. */
  text: string | null;
  /** How paths show it: `button "Send" [disabled]`, `listitem: "Pears"`, `text "Hello"`. */
  label: string;
  /** 1-based line of the node in its snapshot text (blank lines not counted). */
  line: number;
}

export interface AriaFieldChange {
  field: 'role' | 'name' | 'state' | 'prop' | 'text';
  /** The state or property name (`checked`, `level`, `url`), for those fields. */
  key?: string;
  /** null when absent on that side. */
  before: string | null;
  after: string | null;
}

export type AriaDiffEntry =
  | { kind: 'added'; path: string; node: AriaNodeSummary; descendants: number }
  | { kind: 'removed'; path: string; node: AriaNodeSummary; descendants: number }
  | { kind: 'changed'; path: string; before: AriaNodeSummary; after: AriaNodeSummary; changes: AriaFieldChange[] }
  | { kind: 'moved'; from: string; path: string; before: AriaNodeSummary; after: AriaNodeSummary; changes: AriaFieldChange[]; reordered: boolean };

export interface AriaDiff {
  /** The two texts are the same (no parse needed). */
  identical: boolean;
  /** Some entry was found. */
  changed: boolean;
  counts: { before: number; after: number; unchanged: number; added: number; removed: number; changed: number; moved: number };
  /** In the order of the after snapshot; a removed node sits where it was. */
  entries: AriaDiffEntry[];
}

interface TreeNode {
  kind: AriaNodeKind;
  role: string;
  name: string | null;
  states: string[];
  props: [string, string][];
  text: string | null;
  children: TreeNode[];
  parent: TreeNode | null;
  /** Preorder position in its tree (0 = the root). */
  order: number;
  line: number;
  /** role + name (or `text` / `raw`): what stays when content changes. Keys are Interner ids. */
  weak: number;
  /** Role, name, states, properties, text: the node itself without its children. */
  own: number;
  /**
   * What siblings are aligned by: role and name for a named node (so a
   * changed state or child keeps it in place), role and the children's keys
   * for a nameless one (so list items are told apart by their content), the
   * text of a text run.
   */
  align: number;
  /** own + the children's role+name (or text): the move pass's key (-1 until strongOf computes it). */
  strong: number;
  /** Equal ids = identical subtrees. */
  hash: number;
  /** Nodes in the subtree, itself included. */
  size: number;
  match: TreeNode | null;
  /** Matched by the move pass. */
  moved: boolean;
}

const LABEL_TEXT_LIMIT = 80;

function quoted(text: string): string {
  const short = text.length > LABEL_TEXT_LIMIT ? text.slice(0, LABEL_TEXT_LIMIT - 1) + '\u2026' : text;
  return JSON.stringify(short);
}

function labelOf(node: TreeNode): string {
  if (node.kind === 'text') return `text ${quoted(node.text ?? '')}`;
  if (node.kind === 'raw') return quoted(node.text ?? '');
  let label = node.role;
  if (node.name !== null) label += ' ' + quoted(node.name);
  for (const state of node.states) label += ` [${state}]`;
  // As the snapshot writes a node whose one child is text: `listitem: "Pears"`.
  const only = node.children.length === 1 ? node.children[0] : null;
  if (only && only.kind === 'text') label += ': ' + quoted(only.text ?? '');
  return label;
}

function newNode(kind: AriaNodeKind, role: string, name: string | null, states: string[], text: string | null, line: number): TreeNode {
  return {
    kind,
    role,
    name,
    states,
    props: [],
    text,
    children: [],
    parent: null,
    order: 0,
    line,
    weak: 0,
    own: 0,
    align: 0,
    strong: 0,
    hash: 0,
    size: 1,
    match: null,
    moved: false,
  };
}

/** The snapshot text as a tree under a synthetic root: inline values become text children, `/prop` lines the node's properties. */
/** Strings to small integers, shared by both trees so equal ids mean equal keys. */
class Interner {
  private readonly ids = new Map<string, number>();
  /** role -> name -> id, without building a key string per node. */
  private readonly weak = new Map<string, Map<string | null, number>>();
  private next = 0;

  id(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.next++));
    return id;
  }

  weakId(role: string, name: string | null): number {
    let names = this.weak.get(role);
    if (!names) this.weak.set(role, (names = new Map()));
    let id = names.get(name);
    if (id === undefined) names.set(name, (id = this.next++));
    return id;
  }
}

/** The snapshot text as a tree under a synthetic root: inline values become text children, `/prop` lines the node's properties. */
function buildTree(text: string, keys: Interner): { root: TreeNode; nodes: TreeNode[] } {
  const root = newNode('node', '', null, [], null, 0);
  let line = 0;
  const convert = (source: AriaLine, parent: TreeNode) => {
    line++;
    if (source.kind === 'prop' && parent !== root) {
      parent.props.push([source.role, source.value ?? '']);
      return;
    }
    let node: TreeNode;
    if (source.kind === 'text') node = newNode('text', 'text', null, [], source.value ?? '', line);
    else if (source.kind === 'node')
      node = newNode('node', source.role, source.name, source.states.length > 1 ? [...source.states].sort() : source.states, null, line);
    else node = newNode('raw', '', null, [], source.source.trim(), line);
    node.parent = parent;
    parent.children.push(node);
    if (source.kind === 'node' && source.value !== null) {
      const inline = newNode('text', 'text', null, [], source.value, line);
      inline.parent = node;
      node.children.push(inline);
    }
    for (const child of source.children) convert(child, node);
  };
  for (const top of parseAriaYaml(text)) convert(top, root);

  // Preorder numbering, then keys bottom-up (reverse preorder visits children first).
  const nodes: TreeNode[] = [];
  const stack: TreeNode[] = [root];
  while (stack.length) {
    const node = stack.pop()!;
    node.order = nodes.length;
    nodes.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  for (let k = nodes.length - 1; k >= 0; k--) {
    const node = nodes[k];
    node.weak = node.kind === 'node' ? keys.weakId(node.role, node.name) : keys.id(node.kind === 'text' ? 't' : 'r');
    if (node.text === null && !node.states.length && !node.props.length) {
      node.own = node.weak;
    } else {
      let own = `o${node.weak}\u0002${node.text ?? ''}\u0002${node.states.join(' ')}`;
      for (const [key, value] of node.props) own += `\u0002/${key}=${value}`;
      node.own = keys.id(own);
    }
    // A leaf is its own strong key, alignment key (unless named) and subtree hash; ids of distinct strings never collide.
    if (!node.children.length) {
      node.strong = node.own;
      node.hash = node.own;
      node.align = node.kind === 'node' && node.name !== null ? node.weak : node.own;
      continue;
    }
    let content = '';
    let full = '';
    for (const child of node.children) {
      content += ',' + (child.kind === 'text' ? child.own : child.weak);
      full += ',' + child.hash;
      node.size += child.size;
    }
    if (node.kind === 'node' && node.name !== null) {
      node.align = node.weak;
      // Computed by strongOf when the move pass needs it.
      node.strong = -1;
    } else {
      // A nameless node is aligned by what its strong key holds.
      node.align = node.strong = keys.id(`a${node.own}:${content}`);
    }
    node.hash = keys.id(`h${node.own}:${full}`);
  }
  return { root, nodes };
}

/** A node's strong key (own fields and its children's role and name or text), computed once. */
function strongOf(node: TreeNode, keys: Interner): number {
  if (node.strong < 0) {
    let content = '';
    for (const child of node.children) content += ',' + (child.kind === 'text' ? child.own : child.weak);
    node.strong = keys.id(`a${node.own}:${content}`);
  }
  return node.strong;
}

function summary(node: TreeNode): AriaNodeSummary {
  return {
    kind: node.kind,
    role: node.role,
    name: node.name,
    states: node.states,
    props: Object.fromEntries(node.props),
    text: node.text,
    label: labelOf(node),
    line: node.line,
  };
}

function pathOf(node: TreeNode): string {
  const parts: string[] = [];
  for (let n: TreeNode | null = node; n && n.parent; n = n.parent) parts.push(labelOf(n));
  return parts.reverse().join(' > ');
}

/** Bigram Dice similarity of two strings, 0..1. */
function textSimilarity(x: string, y: string): number {
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < x.length - 1; i++) {
    const g = x.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < y.length - 1; i++) {
    const g = y.slice(i, i + 2);
    const left = grams.get(g);
    if (left) {
      shared++;
      grams.set(g, left - 1);
    }
  }
  return (2 * shared) / (x.length - 1 + y.length - 1);
}

/** Dice similarity of the children's alignment keys (multisets), 0..1; 1 when both have none. */
function childSimilarity(a: TreeNode, b: TreeNode): number {
  if (!a.children.length && !b.children.length) return 1;
  if (!a.children.length || !b.children.length) return 0;
  const counts = new Map<number, number>();
  for (const c of a.children) counts.set(c.align, (counts.get(c.align) ?? 0) + 1);
  let shared = 0;
  for (const c of b.children) {
    const left = counts.get(c.align);
    if (left) {
      shared++;
      counts.set(c.align, left - 1);
    }
  }
  return (2 * shared) / (a.children.length + b.children.length);
}

/** Marks two identical subtrees matched, node by node. */
function matchIdentical(a: TreeNode, b: TreeNode): void {
  const stack: [TreeNode, TreeNode][] = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    x.match = y;
    y.match = x;
    for (let i = 0; i < x.children.length; i++) stack.push([x.children[i], y.children[i]]);
  }
}

/** How well two unmatched siblings pair (null: they do not). */
function gapScore(a: TreeNode, b: TreeNode, loneRole: (a: TreeNode, b: TreeNode) => boolean): number | null {
  if (a.kind !== b.kind) return null;
  if (a.kind === 'text' || a.kind === 'raw') return 0.2 + 0.8 * textSimilarity(a.text ?? '', b.text ?? '');
  if (a.weak === b.weak) return 2 + childSimilarity(a, b);
  const names = textSimilarity(a.name ?? '', b.name ?? '');
  if (a.role === b.role) {
    const score = 0.3 + 0.35 * names + 0.35 * childSimilarity(a, b);
    return score >= 0.5 || loneRole(a, b) ? score : null;
  }
  if (a.name && a.name === b.name) return 0.5;
  return null;
}

class TreeMatcher {
  constructor(
    private readonly before: { root: TreeNode; nodes: TreeNode[] },
    private readonly after: { root: TreeNode; nodes: TreeNode[] },
    private readonly keys: Interner,
  ) {}

  run(): void {
    this.matchFrom(this.before.root, this.after.root);
    this.matchMoves();
  }

  /** Matches the descendants of a matched pair, level by level. */
  private matchFrom(a: TreeNode, b: TreeNode): void {
    const queue: [TreeNode, TreeNode][] = [[a, b]];
    a.match = b;
    b.match = a;
    while (queue.length) {
      const [x, y] = queue.pop()!;
      if (x.hash === y.hash) {
        matchIdentical(x, y);
        continue;
      }
      for (const [i, j] of this.alignChildren(x.children, y.children)) {
        const cx = x.children[i];
        const cy = y.children[j];
        cx.match = cy;
        cy.match = cx;
        queue.push([cx, cy]);
      }
    }
  }

  private alignChildren(xs: TreeNode[], ys: TreeNode[]): [number, number][] {
    const pairs = alignSequences(
      xs.map((n) => n.align),
      ys.map((n) => n.align),
    );
    // Pair what lies between two aligned siblings by similarity.
    const out: [number, number][] = [];
    let i = 0;
    let j = 0;
    const gap = (iEnd: number, jEnd: number) => {
      if (iEnd > i && jEnd > j) {
        const gx = xs.slice(i, iEnd);
        const gy = ys.slice(j, jEnd);
        const roles = new Map<string, [number, number]>();
        for (const n of gx) roles.set(n.role, [(roles.get(n.role)?.[0] ?? 0) + 1, 0]);
        for (const n of gy) if (roles.has(n.role)) roles.get(n.role)![1]++;
        const lone = (p: TreeNode, q: TreeNode) => p.role === q.role && roles.get(p.role)?.[0] === 1 && roles.get(p.role)?.[1] === 1;
        for (const [gi, gj] of pairByScore(
          gx,
          gy,
          (p, q) => gapScore(p, q, lone),
          (n) => n.weak,
        )) {
          out.push([i + gi, j + gj]);
        }
      }
    };
    for (const [pi, pj] of pairs) {
      gap(pi, pj);
      out.push([pi, pj]);
      i = pi + 1;
      j = pj + 1;
    }
    gap(xs.length, ys.length);
    return out;
  }

  /** Nodes left unmatched on both sides, matched across the tree as moves. */
  private matchMoves(): void {
    const byHash = new Map<number, TreeNode[]>();
    const byStrong = new Map<number, TreeNode[]>();
    const byWeak = new Map<number, TreeNode[]>();
    const add = (map: Map<number, TreeNode[]>, key: number, node: TreeNode) => {
      const list = map.get(key);
      if (list) list.push(node);
      else map.set(key, [node]);
    };
    for (const node of this.after.nodes) {
      if (node.match) continue;
      add(byHash, node.hash, node);
      add(byStrong, strongOf(node, this.keys), node);
      if (node.kind === 'node' ? !!node.name : node.kind === 'text' && (node.text ?? '').length >= 3) add(byWeak, node.weak, node);
    }
    if (!byHash.size) return;
    const total = { before: this.before.nodes.length, after: this.after.nodes.length };
    const nearest = (node: TreeNode, list: TreeNode[] | undefined): TreeNode | null => {
      if (!list) return null;
      let best: TreeNode | null = null;
      let bestDistance = Infinity;
      const at = node.order / total.before;
      for (const candidate of list) {
        if (candidate.match) continue;
        const distance = Math.abs(candidate.order / total.after - at);
        if (distance < bestDistance) {
          best = candidate;
          bestDistance = distance;
        }
      }
      return best;
    };
    for (const node of this.before.nodes) {
      if (node.match) continue;
      const partner = nearest(node, byHash.get(node.hash)) ?? nearest(node, byStrong.get(strongOf(node, this.keys))) ?? nearest(node, byWeak.get(node.weak));
      if (!partner) continue;
      node.moved = true;
      partner.moved = true;
      this.matchFrom(node, partner);
    }
  }
}

function stateMap(states: string[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const state of states) {
    const eq = state.indexOf('=');
    if (eq < 0) map.set(state, 'true');
    else map.set(state.slice(0, eq), state.slice(eq + 1));
  }
  return map;
}

function fieldChanges(a: TreeNode, b: TreeNode): AriaFieldChange[] {
  const changes: AriaFieldChange[] = [];
  if (a.own === b.own) return changes;
  if (a.kind !== 'node' || b.kind !== 'node') {
    if (a.text !== b.text) changes.push({ field: 'text', before: a.text, after: b.text });
    return changes;
  }
  if (a.role !== b.role) changes.push({ field: 'role', before: a.role, after: b.role });
  if (a.name !== b.name) changes.push({ field: 'name', before: a.name, after: b.name });
  const sa = stateMap(a.states);
  const sb = stateMap(b.states);
  for (const key of [...new Set([...sa.keys(), ...sb.keys()])].sort()) {
    if (sa.get(key) !== sb.get(key)) changes.push({ field: 'state', key, before: sa.get(key) ?? null, after: sb.get(key) ?? null });
  }
  const pa = new Map(a.props);
  const pb = new Map(b.props);
  for (const key of [...new Set([...pa.keys(), ...pb.keys()])].sort()) {
    if (pa.get(key) !== pb.get(key)) changes.push({ field: 'prop', key, before: pa.get(key) ?? null, after: pb.get(key) ?? null });
  }
  return changes;
}

/** Nodes of a snapshot without building its tree: a line each, plus a text child per inline value (as buildTree counts them). */
function countNodes(text: string): number {
  let count = 0;
  const visit = (lines: AriaLine[]) => {
    for (const line of lines) {
      if (line.kind === 'prop' && line.depth > 0) continue;
      count += line.kind === 'node' && line.value !== null ? 2 : 1;
      visit(line.children);
    }
  };
  visit(parseAriaYaml(text));
  return count;
}

/** Diffs two aria snapshot texts. */
export function diffAriaSnapshots(beforeText: string, afterText: string): AriaDiff {
  if (beforeText === afterText) {
    const nodes = countNodes(beforeText);
    return {
      identical: true,
      changed: false,
      counts: { before: nodes, after: nodes, unchanged: nodes, added: 0, removed: 0, changed: 0, moved: 0 },
      entries: [],
    };
  }
  const keys = new Interner();
  const before = buildTree(beforeText, keys);
  const after = buildTree(afterText, keys);
  const counts = { before: before.nodes.length - 1, after: after.nodes.length - 1, unchanged: 0, added: 0, removed: 0, changed: 0, moved: 0 };
  new TreeMatcher(before, after, keys).run();

  // Sort keys: the after tree's preorder; a removed node goes after the last matched node before it.
  const keyed: { key: number; sub: number; entry: AriaDiffEntry }[] = [];
  for (const node of after.nodes) {
    if (!node.parent) continue;
    const partner = node.match;
    if (!partner) {
      if (node.parent.match) {
        counts.added++;
        keyed.push({ key: node.order, sub: 0, entry: { kind: 'added', path: pathOf(node), node: summary(node), descendants: node.size - 1 } });
      }
      continue;
    }
    const changes = fieldChanges(partner, node);
    const reparented = node.moved && partner.parent?.match !== node.parent;
    if (node.moved && (reparented || partner.parent?.match === node.parent)) {
      counts.moved++;
      keyed.push({
        key: node.order,
        sub: 0,
        entry: { kind: 'moved', from: pathOf(partner), path: pathOf(node), before: summary(partner), after: summary(node), changes, reordered: !reparented },
      });
    } else if (changes.length) {
      counts.changed++;
      keyed.push({ key: node.order, sub: 0, entry: { kind: 'changed', path: pathOf(node), before: summary(partner), after: summary(node), changes } });
    } else {
      counts.unchanged++;
    }
  }
  let anchor = 0;
  let sub = 1;
  for (const node of before.nodes) {
    if (node.match) {
      anchor = node.match.order;
      sub = 1;
      continue;
    }
    if (node.parent && node.parent.match) {
      counts.removed++;
      keyed.push({ key: anchor, sub: sub++, entry: { kind: 'removed', path: pathOf(node), node: summary(node), descendants: node.size - 1 } });
    }
  }
  keyed.sort((x, y) => x.key - y.key || x.sub - y.sub);
  const entries = keyed.map((k) => k.entry);
  return { identical: false, changed: entries.length > 0, counts, entries };
}

/** The aria snapshot text of an a11y tree artifact (`{"format":"aria_snapshot","tree":"…"}`), or a clear error naming the file. */
export function readAriaSnapshotFile(file: string): string {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not a readable aria snapshot envelope: ${(err as Error).message}`);
  }
  const tree = envelopeTree(json);
  if (tree === null) throw new Error(`${file}: not an aria snapshot envelope: it must be {"format": "aria_snapshot", "tree": "<snapshot text>"}`);
  return tree;
}

/** One line per entry, for people and logs: `+ main > list > listitem "Pears"`. */
export function describeAriaEntry(entry: AriaDiffEntry): string {
  const changes = (list: AriaFieldChange[]) =>
    list
      .map(
        (c) =>
          `${c.key ? `${c.field} ${c.key}` : c.field} ${c.before === null ? '(none)' : JSON.stringify(c.before)} \u2192 ${c.after === null ? '(none)' : JSON.stringify(c.after)}`,
      )
      .join('; ');
  switch (entry.kind) {
    case 'added':
      return `+ ${entry.path}${entry.descendants ? ` (+${entry.descendants} inside)` : ''}`;
    case 'removed':
      return `- ${entry.path}${entry.descendants ? ` (${entry.descendants} inside)` : ''}`;
    case 'changed':
      return `~ ${entry.path}: ${changes(entry.changes)}`;
    case 'moved':
      return `> ${entry.from} \u2192 ${entry.path}${entry.reordered ? ' (reordered)' : ''}${entry.changes.length ? `: ${changes(entry.changes)}` : ''}`;
  }
}
