import type { Alternative, Segment } from './expand';

// A pattern ready for matching and overlap: its distinct brace-free readings, and the segment automaton
// built from them on first use (automaton.ts).
export interface CompiledPattern {
  source: string;
  alternatives: Alternative[];
  automaton?: Automaton;
}

// The segment-level automaton of a whole pattern (docs/design/overlap.md, sections 2-3): its brace readings merged
// into a minimal DAG (shared prefixes and suffixes collapse), so `{a,b}{a,b}{a,b}/x/**` costs about as much as
// `a/x/**`.
// Positions: 2n is DAG node n; 2n+1 is "inside a `**` that leads to node n" (loops on any segment).
// Moves name their segment by a small id into `segments` (id 0 = any segment), so a search can memoize
// segment pairs in a flat array instead of hashing keys.
export interface Automaton {
  start: number;
  accepting: Uint8Array; // by position
  moves: Array<Array<{ id: number; to: number }>>; // consuming moves
  segments: Array<Segment | undefined>; // distinct segments by id; undefined = any segment
  skips: number[][]; // epsilon moves
}

interface TrieNode {
  end: boolean;
  edges: Map<string, { segment: Segment; child: TrieNode }>;
}

// The automaton of a compiled pattern, built on first use and kept on it (so in the GlobCache holding it).
export function automatonOf(pattern: CompiledPattern): Automaton {
  pattern.automaton ??= buildAutomaton(pattern);
  return pattern.automaton;
}

// Builds the minimal DAG of the readings and its position automaton.
function buildAutomaton(pattern: CompiledPattern): Automaton {
  const root: TrieNode = { end: false, edges: new Map() };
  for (const alt of pattern.alternatives) {
    let node = root;
    for (const segment of alt.segments) {
      let edge = node.edges.get(segment.key);
      if (edge === undefined) {
        edge = { segment, child: { end: false, edges: new Map() } };
        node.edges.set(segment.key, edge);
      }
      node = edge.child;
    }
    node.end = true;
  }
  const ids = new Map<string, number>();
  const nodes: Array<{ end: boolean; edges: Array<{ segment: Segment; to: number }> }> = [];
  // Post-order: a node's identity is its end flag plus its labelled edges to already-merged children.
  const merge = (node: TrieNode): number => {
    const edges = [...node.edges.values()].map((e) => ({ segment: e.segment, to: merge(e.child) }));
    const signature = `${node.end ? 1 : 0}|${edges
      .map((e) => `${e.segment.key}\u0000${e.to}`)
      .sort()
      .join('\u0001')}`;
    let id = ids.get(signature);
    if (id === undefined) {
      id = nodes.length;
      ids.set(signature, id);
      nodes.push({ end: node.end, edges });
    }
    return id;
  };
  const start = 2 * merge(root);
  const size = 2 * nodes.length;
  const accepting = new Uint8Array(size);
  const moves: Automaton['moves'] = Array.from({ length: size }, () => []);
  const skips: number[][] = Array.from({ length: size }, () => []);
  const segments: Array<Segment | undefined> = [undefined];
  const segmentIds = new Map<string, number>();
  nodes.forEach((node, n) => {
    if (node.end) accepting[2 * n] = 1;
    moves[2 * n + 1]!.push({ id: 0, to: 2 * n + 1 });
    skips[2 * n + 1]!.push(2 * n);
    for (const { segment, to } of node.edges) {
      if (segment.kind === 'globstar') {
        skips[2 * n]!.push(2 * to + 1);
        continue;
      }
      let id = segmentIds.get(segment.key);
      if (id === undefined) {
        id = segments.length;
        segmentIds.set(segment.key, id);
        segments.push(segment);
      }
      moves[2 * n]!.push({ id, to: 2 * to });
    }
  });
  return { start, accepting, moves, segments, skips };
}
