import type { LockView } from '../core/lock';
import { escapeForDisplay } from '../core/names';
import { spanText } from '../core/time';
import { runStarter } from '../core/owner';
import { isRunLock, RUN_LEASE_TEXT } from './run-lease-text';

// Human output as a whole: stored text never reaches a terminal raw (the text rule of core/names.ts). Line
// breaks stay; a tab (server messages such as libpq's indent with it) is a space; every other control or
// invisible character is shown escaped.
export function escapeControls(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeForDisplay(line.replace(/\t/g, ' ')))
    .join('\n');
}

// Text already escaped cell by cell, with colour added afterwards: written as it is.
export class SafeText {
  constructor(readonly text: string) {}
}

export type Human = string | SafeText;

// Lines of mixed parts as one SafeText: plain strings are escaped here, SafeText parts are kept.
export function joinLines(parts: Human[]): SafeText {
  return new SafeText(parts.map(humanText).join('\n'));
}

export function humanText(human: Human): string {
  return typeof human === 'string' ? escapeControls(human) : human.text;
}

let colorOn = false;

// Set once per process by entry.ts (a table on a terminal without NO_COLOR).
export function useColor(on: boolean): void {
  colorOn = on;
}

export type Style = 'green' | 'yellow' | 'red' | 'dim' | 'bold';
const CODES: Record<Style, string> = { green: '32', yellow: '33', red: '31', dim: '2', bold: '1' };

export function paint(text: string, style: Style | undefined): string {
  return colorOn && style ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}

// A plain left-aligned table; the last column is not padded. Cells are escaped one by one, so a name
// with a newline or a bidi control in it stays on its own row and in its own column. A row's style
// (if any) colours the whole row once the padding is done, so colour never shifts the columns.
export function table(headers: string[], rawRows: string[][], styleOf?: (index: number) => Style | undefined): SafeText {
  const rows = rawRows.map((row) => row.map(escapeForDisplay));
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => [...(row[i] ?? '')].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat(widths[i]! - [...cell].length)))
      .join('  ')
      .trimEnd();
  return new SafeText([paint(line(headers), 'bold'), ...rows.map((row, i) => paint(line(row), styleOf?.(i)))].join('\n'));
}

// Human form of a relative instant: "in 14m", "3s ago".
export function relativeTime(iso: string, now = Date.now()): string {
  const delta = Date.parse(iso) - now;
  return delta >= 0 ? `in ${spanText(Math.abs(delta))}` : `${spanText(Math.abs(delta))} ago`;
}

const pad2 = (n: number) => String(n).padStart(2, '0');

// Local wall-clock time: "14:32:05" today, "11-24 09:10" on another day.
export function clockTime(iso: string, now = Date.now()): string {
  const at = new Date(iso);
  const today = new Date(now);
  const time = `${pad2(at.getHours())}:${pad2(at.getMinutes())}`;
  if (at.toDateString() === today.toDateString()) return `${time}:${pad2(at.getSeconds())}`;
  return `${at.getFullYear() === today.getFullYear() ? '' : `${at.getFullYear()}-`}${pad2(at.getMonth() + 1)}-${pad2(at.getDate())} ${time}`;
}

// "14:32:05 (in 13m)": both, since a person reads one and a log the other.
export function whenText(iso: string, now = Date.now()): string {
  return `${clockTime(iso, now)} (${relativeTime(iso, now)})`;
}

// A uuid, or a long run of hex digits (a subagent's id).
const LONG_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{12,}/gi;

// Claude Code owners are `claude-<uuid>` (`claude-<uuid>/<agent id>` for a subagent): eight hex digits tell
// sessions apart in a table; --wide shows the whole owner.
export function shortOwner(owner: string): string {
  return clip(
    owner.replace(LONG_ID, (id) => id.slice(0, 8)),
    32,
  );
}

function clip(text: string, max: number): string {
  return [...text].length > max ? `${[...text].slice(0, max - 1).join('')}…` : text;
}

// A lock's key as a person reads it: a file pattern as is, a named lock or a claim by its kind (lock:tests, claim:bd-12).
export function lockKey(type: string | null | undefined, pattern: string): string {
  return type === 'claim' || type === 'named' ? `${type === 'claim' ? 'claim' : 'lock'}:${pattern}` : pattern;
}

// active, delay (lapsed but still binding others for the lock-delay), lapsed, or why it was released.
export function lockState(lock: LockView, now: number, lockDelayMs: number): string {
  if (lock.command_pid !== undefined) return 'active'; // a run whose lease lapsed while its command runs on: it holds
  if (lock.released_at !== null) {
    if (lock.release_reason === 'expired' && Date.parse(lock.expires_at) > now - lockDelayMs) return 'delay';
    return lock.release_reason ?? 'released';
  }
  if (Date.parse(lock.expires_at) > now) return 'active';
  return Date.parse(lock.expires_at) > now - lockDelayMs ? 'delay' : 'lapsed';
}

const STATE_STYLE: Record<string, Style> = { active: 'green', delay: 'yellow' };

export interface LockTableOptions {
  wide?: boolean;
  lockDelayMs?: number;
  now?: number;
  /** Shown instead of the table when there are no locks. */
  empty?: string;
}

// One row per lock. By default what a person asks: who, what, why, since and until when (a released
// row: when it ended and why); --wide adds the id's token, type, mode, scope and the full owner.
export function lockTable(locks: LockView[], options: LockTableOptions = {}): SafeText | string {
  if (locks.length === 0) return options.empty ?? 'no locks';
  const now = options.now ?? Date.now();
  const delay = options.lockDelayMs ?? 0;
  const states = locks.map((lock) => lockState(lock, now, delay));
  const until = (lock: LockView, state: string) => {
    if (lock.command_pid !== undefined) return `while its command runs (process group ${lock.command_pid}; its ic process is gone)`;
    if (state === 'delay') return `lapsed ${whenText(lock.expires_at, now)}, binds others for ${spanText(Date.parse(lock.expires_at) + delay - now)}`;
    if (lock.released_at !== null) return `ended ${whenText(lock.released_at, now)}`;
    if (state === 'active' && isRunLock(lock)) return RUN_LEASE_TEXT; // renewed while its command runs: the lease says nothing
    return whenText(lock.expires_at, now);
  };
  const style = (i: number) => STATE_STYLE[states[i]!] ?? 'dim';
  if (options.wide) {
    return table(
      ['ID', 'TOKEN', 'TYPE', 'MODE', 'OWNER', 'STATE', 'PATTERN', 'REASON', 'SINCE', 'UNTIL', 'SCOPE'],
      locks.map((lock, i) => [
        lock.id,
        String(lock.token),
        lock.type,
        lock.mode,
        lock.owner,
        states[i]!,
        lock.pattern,
        lock.reason ?? '-',
        whenText(lock.created_at, now),
        until(lock, states[i]!),
        lock.scope,
      ]),
      style,
    );
  }
  return table(
    ['ID', 'OWNER', 'STATE', 'PATTERN', 'REASON', 'SINCE', 'UNTIL'],
    locks.map((lock, i) => [
      lock.id,
      shortOwner(runStarter(lock.owner)), // a run's lock is shown as its starter's; --wide has the run's owner
      states[i]!,
      lockKey(lock.type, lock.pattern) + (lock.mode === 'shared' ? ' (shared)' : ''),
      clip(lock.reason ?? '-', 40),
      relativeTime(lock.created_at, now),
      until(lock, states[i]!),
    ]),
    style,
  );
}
