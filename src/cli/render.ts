import type { LockView } from '../core/lock';
import { escapeForDisplay } from '../core/names';

// Human output as a whole: stored text never reaches a terminal raw (the text rule of core/names.ts);
// only the line breaks the output itself is made of survive.
export function escapeControls(text: string): string {
  return text.split('\n').map(escapeForDisplay).join('\n');
}

// A plain left-aligned table; the last column is not padded. Cells are escaped one by one, so a name
// with a newline or a bidi control in it stays on its own row and in its own column.
export function table(headers: string[], rawRows: string[][]): string {
  const rows = rawRows.map((row) => row.map(escapeForDisplay));
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(headers), ...rows.map(line)].join('\n');
}

// Human form of a relative instant: "in 14m", "3s ago".
export function relativeTime(iso: string, now = Date.now()): string {
  const delta = Date.parse(iso) - now;
  const abs = Math.abs(delta);
  const text = abs < 60_000 ? `${Math.round(abs / 1000)}s` : abs < 3_600_000 ? `${Math.round(abs / 60_000)}m` : abs < 86_400_000 ? `${(abs / 3_600_000).toFixed(1)}h` : `${(abs / 86_400_000).toFixed(1)}d`;
  return delta >= 0 ? `in ${text}` : `${text} ago`;
}

export function lockTable(locks: LockView[]): string {
  if (locks.length === 0) return 'no locks';
  return table(
    ['ID', 'TOKEN', 'TYPE', 'MODE', 'OWNER', 'EXPIRES', 'STATE', 'PATTERN'],
    locks.map((lock) => [
      lock.id,
      String(lock.token),
      lock.type,
      lock.mode,
      lock.owner,
      relativeTime(lock.expires_at),
      lock.released_at ? (lock.release_reason ?? 'released') : Date.parse(lock.expires_at) <= Date.now() ? 'lapsed' : 'active',
      lock.pattern,
    ]),
  );
}
