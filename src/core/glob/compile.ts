import { type Alternative, expandPattern } from './expand';
import { validateComplexity } from './limits';
import { parsePattern } from './parse';

// A pattern ready for matching and overlap: its distinct brace-free readings.
export interface CompiledPattern {
  source: string;
  alternatives: Alternative[];
}

const CACHE_SIZE = 4096;
const cache = new Map<string, CompiledPattern>();

// Parses and expands once per distinct pattern; hooks test many paths against the same few patterns.
export function compilePattern(pattern: string): CompiledPattern {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  validateComplexity(pattern);
  const compiled = { source: pattern, alternatives: expandPattern(parsePattern(pattern)) };
  if (cache.size >= CACHE_SIZE) cache.clear();
  cache.set(pattern, compiled);
  return compiled;
}

// Empties the cache; for benchmarks that must measure cold work.
export function clearCompileCache(): void {
  cache.clear();
}
