import type { CompiledPattern } from './automaton';
import { expandPattern } from './expand';
import { validateComplexity } from './limits';
import { parsePattern } from './parse';

// Validates (unless the caller just did), parses and expands a pattern; cache.ts keeps the result.
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
