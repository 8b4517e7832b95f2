// The glob module's public surface: normalise, bound, match and intersect `file` patterns (README, "Patterns: what
// overlaps"; why overlap is exact: docs/design/overlap.md).
export { GlobCache } from './cache';
export { type NormalizeOptions, normalizePattern } from './normalize';
export { type Overlap, overlaps } from './overlap';
export { matchPath } from './match';
export { escapeLiteralPath, isLiteral, LIMITS, literalBase, toNFC, unescapeLiteral, validateComplexity } from './syntax';
