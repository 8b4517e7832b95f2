// "1 lock", "2 locks", "0 locks": a count and its noun, so no message says "renewed 1 locks".
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
