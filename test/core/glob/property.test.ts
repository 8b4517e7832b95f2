// Property tests of the glob core against the brute-force oracle (oracle.ts) and micromatch.
// `npm run fuzz` runs this same file far longer: FUZZ_RUNS (pattern pairs), FUZZ_SEED, FUZZ_PATH_LENGTH,
// FUZZ_TIMING=1 (adds the overlaps() timing report).
import fc from 'fast-check';
import micromatch from 'micromatch';
import { describe, expect, test } from 'vitest';
import { GlobCache, literalBase, matchPath, type NormalizeOptions, normalizePattern, overlaps, unescapeLiteral } from '../../../src/core/glob';
import { casePatternArb, enumeratePaths, expandText, naiveMatcher, patternArb } from './oracle';

const PAIRS = Number(process.env.FUZZ_RUNS ?? 15000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH_LENGTH = Number(process.env.FUZZ_PATH_LENGTH ?? 5);
const POOL = 24;
const RUNS = Math.max(1, Math.ceil(PAIRS / ((POOL * (POOL + 1)) / 2)));
const PATHS = enumeratePaths(['a', 'b', '.', '*', '/'], PATH_LENGTH);
const ROOT = '/r';
const MM_OPTIONS = { dot: true, posix: true };

// The pattern normalizePattern makes of random text, or undefined when it refuses it.
function tryNormalize(raw: string, options: Omit<NormalizeOptions, 'root'> = {}): string | undefined {
  try {
    return normalizePattern(raw, { root: ROOT, ...options });
  } catch {
    return undefined;
  }
}

// Text the oracle reads as normalizePattern does: no `.`/`..` segment (escaped or not) and no trailing `/`
// in any reading
// (normalizePattern folds those; the oracle would take them literally).
function oracleReadable(raw: string): boolean {
  const dots = (segment: string): boolean => ['.', '..'].includes(segment.replace(/\\(.)/g, '$1'));
  return expandText(raw).every((alt) => !alt.endsWith('/') && !alt.split('/').some(dots));
}

// Random patterns, some under a literal directory so the literal-base prefilter gets exercised.
const normalizedArb = fc
  .tuple(fc.constantFrom('', '', '', 'a/', 'b/', 'a/b/', 'a.'), patternArb)
  .map(([prefix, raw]) => tryNormalize(prefix + raw.replace(/^\/+/, '')))
  .filter((p): p is string => p !== undefined);

// Constructs where our documented semantics differ from micromatch (see micromatch.test.ts).
function comparableWithMicromatch(pattern: string): boolean {
  if (/\*\{|\}\*/.test(pattern)) return false; // a `**` assembled by brace expansion
  if (pattern.includes('{') && pattern.includes('..')) return false; // `..` inside braces
  if (pattern.includes('.-a')) return false; // a class range spanning `/`
  if (/\.\*/.test(pattern) || (pattern.includes('{') && /\.[?[]/.test(pattern))) return false; // picomatch's dot guard
  if (/[^/]\*\*|\*\*[^/]/.test(pattern)) return false; // `**` sharing its segment with other text
  if (pattern.includes('**/{')) return false; // a `*` alternative right after `**/` matching zero segments
  for (const alt of expandText(pattern)) {
    if (alt.startsWith('/') || alt.endsWith('/') || alt.includes('//') || alt === '') return false; // empty segments
    const segments = alt.split('/');
    for (let i = 1; i < segments.length; i++) {
      if (segments[i] === '**' && segments[i - 1]!.includes('*')) return false; // `*/**` matching zero segments
    }
  }
  return true;
}

interface Facts {
  bits: Uint8Array;
  base: string[];
}

const factsCache = new Map<string, Facts>();

// Oracle bits over every enumerated path, checking on the way that matchPath agrees with the oracle
// everywhere and with micromatch wherever the semantics are meant to coincide.
function factsOf(pattern: string): Facts {
  const hit = factsCache.get(pattern);
  if (hit !== undefined) return hit;
  const oracle = naiveMatcher(pattern);
  const mm = comparableWithMicromatch(pattern) ? micromatch.matcher(pattern, MM_OPTIONS) : undefined;
  const bits = new Uint8Array(PATHS.length);
  PATHS.forEach((path, i) => {
    const expected = oracle(path);
    bits[i] = expected ? 1 : 0;
    if (matchPath(pattern, path) !== expected) throw new Error(`matchPath(${pattern}, ${path}) !== oracle ${expected}`);
    if (mm !== undefined && mm(path) !== expected) throw new Error(`micromatch(${pattern}, ${path}) !== ${expected}`);
  });
  const base = literalBase(pattern)
    .split('/')
    .filter((s) => s !== '');
  const facts = { bits, base };
  if (factsCache.size > 20_000) factsCache.clear();
  factsCache.set(pattern, facts);
  return facts;
}

// First enumerated path both patterns match, if any.
function commonPath(x: Facts, y: Facts): string | undefined {
  for (let i = 0; i < PATHS.length; i++) if (x.bits[i] === 1 && y.bits[i] === 1) return PATHS[i];
  return undefined;
}

// Neither base is a segment prefix of the other.
function basesUnrelated(x: string[], y: string[]): boolean {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return true;
  return false;
}

// Best of three cold runs (a new cache each time), so JIT warm-up does not pose as the worst case.
function coldTime(a: string, b: string): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const cache = new GlobCache();
    const t0 = performance.now();
    overlaps(a, b, cache);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const stats = { pairs: 0, overlapping: 0, disjoint: 0, prefiltered: 0, micromatchCompared: 0 };

describe(`glob properties (${RUNS} pools of ≤${POOL} patterns, paths ≤${PATH_LENGTH} chars: ${PATHS.length})`, () => {
  test('overlaps() is exact, symmetric and reflexive; examples match; literal bases prefilter soundly', () => {
    fc.assert(
      fc.property(fc.uniqueArray(normalizedArb, { minLength: POOL, maxLength: POOL }), (pool) => {
        const facts = pool.map(factsOf);
        for (let i = 0; i < pool.length; i++) {
          for (let j = i; j < pool.length; j++) {
            const a = pool[i]!;
            const b = pool[j]!;
            const result = overlaps(a, b);
            const reverse = overlaps(b, a);
            const common = commonPath(facts[i]!, facts[j]!);
            stats.pairs++;
            expect(reverse.overlap, `symmetry ${a} | ${b}`).toBe(result.overlap);
            if (i === j) expect(result.overlap, `reflexive ${a}`).toBe(true);
            if (common !== undefined) expect(result.overlap, `${a} | ${b} share ${common}`).toBe(true);
            if (result.overlap) {
              stats.overlapping++;
              const example = result.example!;
              for (const p of [a, b]) {
                expect(matchPath(p, example), `example ${example} for ${p}`).toBe(true);
                expect(naiveMatcher(p)(example), `oracle: example ${example} for ${p}`).toBe(true);
              }
            } else stats.disjoint++;
            if (basesUnrelated(facts[i]!.base, facts[j]!.base)) {
              stats.prefiltered++;
              expect(common, `bases diverge yet ${a} | ${b} share ${common}`).toBeUndefined();
              expect(result.overlap).toBe(false);
            }
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    for (const p of factsCache.keys()) if (comparableWithMicromatch(p)) stats.micromatchCompared++;
    console.log('glob property stats', { ...stats, patterns: factsCache.size });
    expect(stats.overlapping).toBeGreaterThan(stats.pairs / 10);
    expect(stats.disjoint).toBeGreaterThan(stats.pairs / 10);
    expect(stats.micromatchCompared).toBeGreaterThan(factsCache.size / 4);
  });

  test('normalizePattern is idempotent', () => {
    fc.assert(
      fc.property(normalizedArb, (p) => {
        expect(normalizePattern(p, { root: ROOT })).toBe(p);
      }),
      { numRuns: Math.min(20_000, PAIRS), seed: SEED },
    );
  });

  // Issue #11: `link/\\[id\\]/page.tsx` was stored as `real/\\[id\\]/page.tsx/sx`. Resolving `link` → `real` must keep
  // every escape: the pattern through the link is the pattern written against the target, and means what the
  // oracle says the text means.
  test('a symlinked directory before escaped names resolves without touching the escapes', () => {
    const prefixes = ['app/\\[id\\]/', 'a\\*b/', 'a\\\\b/', 'x/\\{a,b\\}/', 'a\\*b', 'app/\\[id\\]', ''];
    const resolvePath = (abs: string): string => (abs === `${ROOT}/link` || abs.startsWith(`${ROOT}/link/`) ? `${ROOT}/real${abs.slice(ROOT.length + 5)}` : abs);
    const paths = PATHS.filter((path) => path.length <= 4);
    let checked = 0;
    fc.assert(
      fc.property(fc.constantFrom(...prefixes), patternArb, (prefix, raw) => {
        const text = prefix + raw.replace(/^\/+/, '');
        const viaLink = tryNormalize(`link/${text}`, { resolvePath });
        const direct = tryNormalize(`real/${text}`, { resolvePath });
        expect(viaLink, text).toBe(direct);
        if (direct === undefined || text === '' || !oracleReadable(text)) return;
        checked++;
        const oracle = naiveMatcher(text);
        const literal = unescapeLiteral(prefix);
        for (const path of paths) {
          for (const named of [literal + path, path]) {
            if (named.startsWith('/') || named.includes('//')) continue;
            expect(matchPath(direct, `real/${named}`), `${direct} on real/${named}`).toBe(oracle(named));
          }
        }
      }),
      { numRuns: Math.ceil(PAIRS / 75), seed: SEED },
    );
    expect(checked).toBeGreaterThan(10);
  });

  // Issue #11: under core.ignorecase class text was lower-cased (`[A-z]` → `[a-z]`). A folded pattern on a
  // lower-cased path must answer what the case-insensitive oracle answers on the path as written, and the
  // overlap of two folded patterns must be exact for case-insensitive paths.
  test('core.ignorecase: folded patterns match and overlap as the case-insensitive oracle says', () => {
    const casePaths = enumeratePaths(['a', 'B', '_', '[', '.', '/'], 4);
    const ciFacts = new Map<string, Uint8Array>();
    const factsCI = (raw: string, folded: string): Uint8Array => {
      const key = `${raw}\u0000${folded}`;
      let bits = ciFacts.get(key);
      if (bits !== undefined) return bits;
      const oracle = naiveMatcher(raw, { ignoreCase: true });
      bits = new Uint8Array(casePaths.length);
      casePaths.forEach((path, i) => {
        const expected = oracle(path);
        bits![i] = expected ? 1 : 0;
        expect(matchPath(folded, path.toLowerCase()), `${raw} → ${folded} on ${path}`).toBe(expected);
      });
      ciFacts.set(key, bits);
      return bits;
    };
    const foldedArb = casePatternArb
      .filter(oracleReadable)
      .map((raw) => ({ raw, folded: tryNormalize(raw, { ignoreCase: true }) }))
      .filter((x): x is { raw: string; folded: string } => x.folded !== undefined);
    let overlapping = 0;
    let disjoint = 0;
    fc.assert(
      fc.property(fc.array(foldedArb, { minLength: 8, maxLength: 8 }), (pool) => {
        const bits = pool.map((p) => factsCI(p.raw, p.folded));
        for (let i = 0; i < pool.length; i++) {
          expect(tryNormalize(pool[i]!.folded, { ignoreCase: true }), 'idempotent').toBe(pool[i]!.folded);
          for (let j = i + 1; j < pool.length; j++) {
            const result = overlaps(pool[i]!.folded, pool[j]!.folded);
            const common = casePaths.find((_, k) => bits[i]![k] === 1 && bits[j]![k] === 1);
            if (common !== undefined) expect(result.overlap, `${pool[i]!.raw} | ${pool[j]!.raw} share ${common}`).toBe(true);
            if (result.overlap) {
              overlapping++;
              for (const p of [pool[i]!, pool[j]!]) {
                expect(naiveMatcher(p.raw, { ignoreCase: true })(result.example!), `example ${result.example} for ${p.raw}`).toBe(true);
              }
            } else disjoint++;
          }
        }
      }),
      { numRuns: Math.ceil(PAIRS / 250), seed: SEED },
    );
    expect(overlapping).toBeGreaterThan(10);
    expect(disjoint).toBeGreaterThan(10);
  });

  test.runIf(process.env.FUZZ_TIMING === '1')('timing report for overlaps()', () => {
    const pool = fc.sample(normalizedArb, { numRuns: 400, seed: SEED });
    const times: number[] = [];
    let worst = { ms: 0, a: '', b: '' };
    for (let i = 0; i < pool.length; i++) {
      for (let j = i; j < Math.min(pool.length, i + 25); j++) {
        const ms = coldTime(pool[i]!, pool[j]!);
        times.push(ms);
        if (ms > worst.ms) worst = { ms, a: pool[i]!, b: pool[j]! };
      }
    }
    times.sort((x, y) => x - y);
    const at = (q: number): string => times[Math.floor(q * (times.length - 1))]!.toFixed(4);
    console.log(`overlaps() cold over ${times.length} random pairs: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${worst.ms.toFixed(4)} ms`, worst);
    const r = (x: string, n: number): string => x.repeat(n);
    const B4 = r('{a,b}', 4);
    const adversarial: Array<[string, string, string]> = [
      ['long starred segments', `*${r('a', 120)}*b`, `*${r('a', 120)}*c`],
      ['32 stars', `${r('*a', 31)}*b`, `${r('*a', 31)}*c`],
      ['classes between stars', `*${r('[ab]', 30)}*c`, `*${r('[ab]', 30)}*d`],
      ['globstars and starred segments', '**/*a*/**/*a*/**/*a*/**/*b', '**/*a*/**/*a*/**/*a*/**/*c'],
      ['16 expansions, long starred', `${B4}*${r('a', 110)}*b`, `${B4}*${r('a', 110)}*c`],
      ['16 expansions, literal vs starred', `${B4}${r('a', 120)}`, `${B4}*${r('a', 60)}b*`],
      ['16 expansions, classes vs starred', `${B4}${r('[ab]', 28)}${r('a', 90)}`, `${B4}*${r('a', 60)}b*`],
      ['16 expansions, qmarks', `${B4}*${r('?', 27)}`, `${B4}*${r('?', 27)}*${r('a', 80)}`],
      ['64 segments', `${r('*/', 31)}${r('x/', 32)}y`, `${r('?/', 31)}${r('x/', 32)}z`],
      ['globstars then wildcards', `${r('**/a/', 4)}${r('*/', 20)}b`, `${r('**/a/', 4)}${r('?/', 20)}c`],
    ];
    for (const [name, a, b] of adversarial) {
      console.log(`overlaps() adversarial "${name}": ${coldTime(a, b).toFixed(3)} ms`);
    }
  });
});
