// Time is plain epoch milliseconds inside; RFC 3339 UTC with milliseconds at the edges (CONTRACT.md).
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function formatNullableTime(ms: number | null): string | null {
  return ms === null ? null : formatTime(ms);
}
