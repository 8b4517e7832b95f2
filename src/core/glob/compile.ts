import type { Automaton } from './automaton';
import { type Alternative, expandPattern } from './expand';
import { validateComplexity } from './limits';
import { parsePattern } from './parse';

// A pattern ready for matching and overlap: its distinct brace-free readings, and the segment automaton
// built from them on first use (automaton.ts).
export interface CompiledPattern {
  source: string;
  alternatives: Alternative[];
  automaton?: Automaton;
}

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
