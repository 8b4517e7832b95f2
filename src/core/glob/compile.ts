import { type Alternative, expandPattern } from './expand';
import { validateComplexity } from './limits';
import { parsePattern } from './parse';

// A pattern ready for matching and overlap: its distinct brace-free readings.
export interface CompiledPattern {
  source: string;
  alternatives: Alternative[];
}

const CACHE_SIZE = 4096;
const CACHE_ITEMS = 1 << 18; // items summed over cached patterns: a few MB, however large each pattern is
const cache = new Map<string, CompiledPattern>();
let cachedItems = 0;

// Parses and expands once per distinct pattern; hooks test many paths against the same few patterns.
export function compilePattern(pattern: string): CompiledPattern {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  validateComplexity(pattern);
  const compiled = { source: pattern, alternatives: expandPattern(parsePattern(pattern)) };
  const items = weight(compiled);
  if (cache.size >= CACHE_SIZE || cachedItems + items > CACHE_ITEMS) clearCompileCache();
  cache.set(pattern, compiled);
  cachedItems += items;
  return compiled;
}

// Empties the cache; for benchmarks that must measure cold work.
export function clearCompileCache(): void {
  cache.clear();
  cachedItems = 0;
}

// Segment items held by a compiled pattern: what bounds the cache's memory (16 readings × 255 items each
// would otherwise let 4096 cached patterns hold hundreds of MB and turn every decision into a GC pause).
function weight(compiled: CompiledPattern): number {
  let items = 0;
  for (const alt of compiled.alternatives) for (const s of alt.segments) items += s.kind === 'chars' ? s.items.length + 1 : 1;
  return items;
}
