import { IcError } from '../../core/errors';
import { objectSpans } from './json-spans';

// One hook entry as Claude Code and Codex both read it: event → [{matcher?, hooks: [{type, command, timeout}]}].
export interface HookEntry {
  event: string;
  matcher?: string;
  /** The `ic coord hook` name: how our entries are recognised again, whatever path the command has. */
  name: string;
  command: string;
  timeout: number;
}

type Json = Record<string, unknown>;

// Is this hook handler one of ours (the named `coord hook …` command)?
// The `hooks` object of a settings or hooks.json text (event name -> groups), or undefined when the text
// is not JSON or has none: readers that only look never fail on a file the user broke.
export function hooksObjectOf(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return undefined;
  }
  const hooks = (root as { hooks?: unknown } | null)?.hooks;
  return hooks !== null && typeof hooks === 'object' && !Array.isArray(hooks) ? (hooks as Record<string, unknown>) : undefined;
}

export function isOurHandler(handler: unknown, names: readonly string[]): boolean {
  const command = (handler as { command?: unknown } | null)?.command;
  if (typeof command !== 'string') return false;
  return names.some((name) => new RegExp(`(^|\\s)coord(ination)? hook ${name}(\\s|$)`).test(command));
}

function parseConfig(text: string | undefined, file: string): Json {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new IcError('INVALID_INPUT', `${file} is not valid JSON (${(error as Error).message}); fix it, then run the installer again`, { file });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new IcError('INVALID_INPUT', `${file} is not a JSON object`, { file });
  return value as Json;
}

function hooksOf(root: Json, file: string): Json | undefined {
  const hooks = root.hooks;
  if (hooks === undefined) return undefined;
  if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) throw new IcError('INVALID_INPUT', `"hooks" in ${file} is not an object`, { file });
  return hooks as Json;
}

function groupsOf(hooks: Json, event: string, file: string): unknown[] {
  const groups = hooks[event] ?? [];
  if (!Array.isArray(groups)) throw new IcError('INVALID_INPUT', `"hooks.${event}" in ${file} is not an array`, { file });
  return groups;
}

function indentOf(original: string | undefined): string {
  const match = original ? /^([ \t]+)\S/m.exec(original) : null;
  return match ? match[1]! : '  ';
}

// A whole new file, in the usual two-space form.
function serialize(root: Json): string {
  return `${JSON.stringify(root, null, 2)}\n`;
}

// The `hooks` value as it sits one level deep in the file, in the file's own indent unit.
function hooksText(hooks: Json, indent: string): string {
  return JSON.stringify(hooks, null, indent).split('\n').join(`\n${indent}`);
}

// Writes the new `hooks` member into the original text and leaves every other byte alone: replaced in
// place when present, else appended after the last member (exactly what removeHooksMember undoes).
function withHooksMember(original: string, hooks: Json): string {
  const indent = indentOf(original);
  const spans = objectSpans(original);
  const existing = spans.members.find((m) => m.key === 'hooks');
  const value = hooksText(hooks, indent);
  if (existing) return original.slice(0, existing.valueStart) + value + original.slice(existing.valueEnd);
  const last = spans.members[spans.members.length - 1];
  if (!last) return `${original.slice(0, spans.open + 1)}\n${indent}"hooks": ${value}\n${original.slice(spans.close)}`;
  return `${original.slice(0, last.valueEnd)},\n${indent}"hooks": ${value}${original.slice(last.valueEnd)}`;
}

function withoutHooksMember(original: string): string {
  const spans = objectSpans(original);
  const index = spans.members.findIndex((m) => m.key === 'hooks');
  const member = spans.members[index]!;
  const previous = spans.members[index - 1];
  const next = spans.members[index + 1];
  if (previous) return original.slice(0, previous.valueEnd) + original.slice(member.valueEnd);
  if (next) return original.slice(0, member.keyStart) + original.slice(next.keyStart);
  return original.slice(0, spans.open + 1) + original.slice(spans.close);
}

// Drops our handlers from the groups; a group left with no handler goes too.
function withoutOurs(groups: unknown[], names: readonly string[]): unknown[] {
  const kept: unknown[] = [];
  for (const group of groups) {
    const handlers = (group as { hooks?: unknown } | null)?.hooks;
    if (!Array.isArray(handlers) || !handlers.some((h) => isOurHandler(h, names))) {
      kept.push(group);
      continue;
    }
    const rest = handlers.filter((h) => !isOurHandler(h, names));
    if (rest.length > 0) kept.push({ ...(group as Json), hooks: rest });
  }
  return kept;
}

function desiredGroup(entry: HookEntry): Json {
  const handler = { type: 'command', command: entry.command, timeout: entry.timeout };
  return entry.matcher === undefined ? { hooks: [handler] } : { matcher: entry.matcher, hooks: [handler] };
}

// The file with our entries present exactly once each; the same text back when they already are.
export function mergeHookEntries(text: string | undefined, entries: readonly HookEntry[], file: string): string {
  const root = parseConfig(text, file);
  const hooks = hooksOf(root, file) ?? {};
  let changed = false;
  for (const entry of entries) {
    const groups = groupsOf(hooks, entry.event, file);
    const ours = groups.filter((g) => Array.isArray((g as { hooks?: unknown } | null)?.hooks) && ((g as Json).hooks as unknown[]).some((h) => isOurHandler(h, [entry.name])));
    const wanted = desiredGroup(entry);
    if (ours.length === 1 && JSON.stringify(ours[0]) === JSON.stringify(wanted)) continue;
    hooks[entry.event] = [...withoutOurs(groups, [entry.name]), wanted];
    changed = true;
  }
  if (!changed && text !== undefined) return text;
  if (text === undefined || text.trim() === '') return serialize({ ...root, hooks });
  return withHooksMember(text, hooks);
}

// The file with our entries gone (events and `hooks` emptied by that go too); null when nothing else is
// left, so a file the installer created is deleted again.
export function removeHookEntries(text: string | undefined, names: readonly string[], file: string): string | null | undefined {
  if (text === undefined) return undefined;
  const root = parseConfig(text, file);
  const hooks = hooksOf(root, file);
  if (!hooks) return text;
  let changed = false;
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept = withoutOurs(groups, names);
    if (kept.length === groups.length && JSON.stringify(kept) === JSON.stringify(groups)) continue;
    changed = true;
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
  if (!changed) return text;
  if (Object.keys(hooks).length > 0) return withHooksMember(text, hooks);
  if (Object.keys(root).length === 1) return null;
  return withoutHooksMember(text);
}
