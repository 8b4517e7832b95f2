import { chmodSync, existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { readIfExists } from './git-hook';
import { mergeHookEntries, removeChild, removeHookEntries, type HookEntry } from './json-hooks';
import { parseNode } from './json-spans';

// One file change an install or uninstall plans, and the writes every target's plan shares.

export interface Change {
  file: string;
  action: 'created' | 'updated' | 'removed' | 'restored' | 'backed_up';
  /** The file's new text, for changes that write one. */
  text?: string;
  apply: () => void;
}

export function planJsonMerge(file: string, entries: HookEntry[], retire: readonly string[] = []): Change[] {
  const before = readIfExists(file);
  const merged = mergeHookEntries(before, entries, file);
  const after = retire.length > 0 ? (removeHookEntries(merged, retire, file) ?? merged) : merged;
  if (after === before) return [];
  return [{ file, action: before === undefined ? 'created' : 'updated', text: after, apply: () => writeText(file, after) }];
}

export function planJsonRemove(file: string, names: readonly string[], statusLine = false): Change[] {
  const before = readIfExists(file);
  const removed = removeHookEntries(before, names, file);
  const after = statusLine && typeof removed === 'string' ? withoutOurStatusLine(removed) : removed;
  if (after === undefined || after === before) return [];
  if (after === null || /^\s*\{\s*\}\s*$/.test(after)) return [{ file, action: 'removed', apply: () => removeFileAndEmptyDir(file) }];
  return [{ file, action: 'updated', apply: () => writeText(file, after) }];
}

// The "statusLine" install's next steps suggested (an ic statusline command), taken out with its spacing.
function withoutOurStatusLine(text: string): string {
  let root: { statusLine?: { command?: unknown } };
  try {
    root = JSON.parse(text) as typeof root;
  } catch {
    return text;
  }
  const command = root?.statusLine?.command;
  if (typeof command !== 'string' || !/(^|\s)coord(ination)? statusline$/.test(command)) return text;
  const node = parseNode(text);
  const index = node.members!.findIndex((m) => m.key === 'statusLine');
  return removeChild(text, node, index);
}

// Written beside the target and renamed over it: a reader (Claude Code, Codex, git) never sees half a
// settings file or hook, and a crash mid-write leaves the old file whole.
export function writeText(target: string, text: string, mode?: number): void {
  mkdirSync(dirname(target), { recursive: true });
  const file = existsSync(target) ? realpathSync(target) : target; // a symlinked settings file stays a link
  const temp = `${file}.ic-${process.pid}.tmp`;
  try {
    writeFileSync(temp, text);
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

// Deletes a config file the installer emptied, and its directory when nothing else is in it.
function removeFileAndEmptyDir(file: string): void {
  unlinkSync(file);
  const dir = dirname(file);
  if (readdirSync(dir).length === 0) rmdirSync(dir);
}
