import type { CompiledPattern } from './automaton';
import { expandPattern, type Segment } from './expand';
import { isLiteralPair, segmentWitness } from './segment';
import { parsePattern, validateComplexity } from './syntax';

// The glob core's only mutable state, in one explicit object (docs/design/overlap.md, section 6): compiled patterns
// and the segment pairs already decided. Each part is bounded and simply emptied when full.
const MAX_PATTERNS = 4096;
const MAX_PATTERN_ITEMS = 1 << 18; // items summed over cached patterns: a few MB, however large each pattern is
const MAX_PAIR_CHARS = 1 << 20; // witness text plus keys summed over remembered pairs

export class GlobCache {
  private readonly patterns = new Map<string, CompiledPattern>();
  private patternItems = 0;
  private readonly pairs = new Map<string, Map<string, string | null>>();
  private pairChars = 0;

  // A pattern compiled once (and so validated once) per cache; `validated` says the caller has just checked it.
  compiled(pattern: string, validated = false): CompiledPattern {
    const hit = this.patterns.get(pattern);
    if (hit !== undefined) return hit;
    const compiled = compilePattern(pattern, validated);
    const items = weightOf(compiled);
    if (this.patterns.size >= MAX_PATTERNS || this.patternItems + items > MAX_PATTERN_ITEMS) {
      this.patterns.clear();
      this.patternItems = 0;
    }
    this.patterns.set(pattern, compiled);
    this.patternItems += items;
    return compiled;
  }

  // The segment decider (segment.ts) memoised by the pair's text: pairs recur across the checks of one command.
  witness(x: Segment | undefined, y: Segment | undefined): string | undefined {
    if (isLiteralPair(x, y)) return segmentWitness(x, y); // cheaper than the lookup
    const kx = x?.key ?? '**';
    const ky = y?.key ?? '**';
    let row = this.pairs.get(kx);
    const hit = row?.get(ky);
    if (hit !== undefined) return hit ?? undefined;
    const found = segmentWitness(x, y);
    const chars = kx.length + ky.length + (found?.length ?? 0);
    if (this.pairChars + chars > MAX_PAIR_CHARS) {
      this.pairs.clear();
      this.pairChars = 0;
      row = undefined;
    }
    if (row === undefined) {
      row = new Map();
      this.pairs.set(kx, row);
    }
    row.set(ky, found ?? null);
    this.pairChars += chars;
    return found;
  }
}

// Validates (unless the caller just did), parses and expands a pattern; the cache keeps the result.
export function compilePattern(pattern: string, validated = false): CompiledPattern {
  if (!validated) validateComplexity(pattern);
  return { source: pattern, alternatives: expandPattern(parsePattern(pattern)) };
}

// Segment items held by a compiled pattern: what bounds a cache's memory (16 readings × 255 items each would
// otherwise let 4096 cached patterns hold hundreds of MB and turn every decision into a GC pause).
export function weightOf(compiled: CompiledPattern): number {
  let items = 0;
  for (const alt of compiled.alternatives) for (const s of alt.segments) items += s.kind === 'chars' ? s.items.length + 1 : 1;
  return items;
}

// The cache `overlaps` and `matchPath` use when not given one: one per process, which for the CLI is one command.
export const SHARED_CACHE = new GlobCache();
