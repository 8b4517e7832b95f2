import { IcError } from '../../core/errors';
import { parseNode, type JsonNode } from './json-spans';

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

// The `hooks` object of a settings or hooks.json text (event name -> groups), or undefined when the text
// is not JSON or has none: readers that only look never fail on a file the user broke.
export function hooksObjectOf(text: string | undefined): Record<string, unknown> | undefined {
  try {
    return hooksOf(parseConfig(text, ''), '');
  } catch {
    return undefined;
  }
}

// Is this hook handler one of ours (the named `coord hook …` command)?
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

function desiredGroup(entry: HookEntry): Json {
  const handler = { type: 'command', command: entry.command, timeout: entry.timeout };
  return entry.matcher === undefined ? { hooks: [handler] } : { matcher: entry.matcher, hooks: [handler] };
}

// The file with our entries present exactly once each; the same text back when they already are. Only our
// groups are written or removed (text surgery on their spans): the user's entries keep every byte.
export function mergeHookEntries(text: string | undefined, entries: readonly HookEntry[], file: string): string {
  const root = parseConfig(text, file);
  const hooks = hooksOf(root, file) ?? {};
  for (const entry of entries) groupsOf(hooks, entry.event, file);
  if (text === undefined || text.trim() === '') {
    for (const entry of entries) hooks[entry.event] = [...((hooks[entry.event] as unknown[]) ?? []), desiredGroup(entry)];
    return `${JSON.stringify({ ...root, hooks }, null, 2)}\n`;
  }
  const unit = indentOf(text);
  let result = text;
  for (const entry of entries) result = mergeOne(result, entry, unit);
  return result;
}

function mergeOne(text: string, entry: HookEntry, unit: string): string {
  const wanted = desiredGroup(entry);
  const root = parseNode(text);
  const hooks = memberOf(root, 'hooks');
  if (!hooks) return insertChild(text, root, { key: 'hooks', value: { [entry.event]: [wanted] } }, 1, unit);
  const event = memberOf(hooks, entry.event);
  if (!event) return insertChild(text, hooks, { key: entry.event, value: [wanted] }, 2, unit);
  const groups = event.elements ?? [];
  const ours = groups.filter((group) => handlersOf(text, group).some((h) => isOurHandler(h.value, [entry.name])));
  if (ours.length === 1 && JSON.stringify(JSON.parse(text.slice(ours[0]!.start, ours[0]!.end))) === JSON.stringify(wanted)) return text;
  const without = removeOurs(text, entry.event, [entry.name]);
  return insertChild(without, memberOf(memberOf(parseNode(without), 'hooks')!, entry.event)!, { value: wanted }, 3, unit);
}

// The file with our entries gone (events and `hooks` emptied by that go too); null when nothing else is
// left, so a file the installer created is deleted again. Every byte of the user's entries stays.
export function removeHookEntries(text: string | undefined, names: readonly string[], file: string): string | null | undefined {
  if (text === undefined) return undefined;
  const root = parseConfig(text, file);
  if (!hooksOf(root, file)) return text;
  let result = text;
  const emptied: string[] = [];
  const hooksNode = memberOf(parseNode(result), 'hooks')!;
  for (const member of hooksNode.members ?? []) {
    if (!member.value.elements) continue;
    const after = removeOurs(result, member.key, names);
    if (after === result) continue;
    result = after;
    emptied.push(member.key);
  }
  if (result === text) return text;
  // Events our removal left empty go, then `hooks` itself when nothing is left in it.
  for (const key of emptied) {
    const hooks = memberOf(parseNode(result), 'hooks')!;
    const index = hooks.members!.findIndex((m) => m.key === key);
    if (index >= 0 && hooks.members![index]!.value.elements?.length === 0) result = removeChild(result, hooks, index);
  }
  const top = parseNode(result);
  const hooksIndex = top.members!.findIndex((m) => m.key === 'hooks');
  if (top.members![hooksIndex]!.value.members?.length !== 0) return result;
  if (top.members!.length === 1) return null;
  return removeChild(result, top, hooksIndex);
}

// Removes our handlers from one event's groups, one at a time from the last (re-reading the spans after
// each cut); a group left with none of the user's handlers goes as a whole.
function removeOurs(text: string, eventKey: string, names: readonly string[]): string {
  let result = text;
  for (;;) {
    const event = memberOf(memberOf(parseNode(result), 'hooks')!, eventKey)!;
    const groups = event.elements ?? [];
    const hits = groups.map((group, index) => (handlersOf(result, group).some((h) => isOurHandler(h.value, names)) ? index : -1));
    const g = Math.max(...hits, -1);
    if (g < 0) return result;
    const handlers = handlersOf(result, groups[g]!);
    const ours = handlers.map((h, i) => (isOurHandler(h.value, names) ? i : -1)).filter((i) => i >= 0);
    result = ours.length === handlers.length ? removeChild(result, event, g) : removeChild(result, memberOf(groups[g]!, 'hooks')!, ours[ours.length - 1]!);
  }
}

function memberOf(node: JsonNode, key: string): JsonNode | undefined {
  return node.members?.find((m) => m.key === key)?.value;
}

function handlersOf(text: string, group: JsonNode): { node: JsonNode; value: unknown }[] {
  const array = memberOf(group, 'hooks');
  return (array?.elements ?? []).map((node) => ({ node, value: JSON.parse(text.slice(node.start, node.end)) as unknown }));
}

function indentOf(original: string): string {
  const match = /^([ \t]+)\S/m.exec(original);
  return match ? match[1]! : '  ';
}

function childSpan(container: JsonNode, index: number): { start: number; end: number } {
  if (container.members) {
    const member = container.members[index]!;
    return { start: member.keyStart, end: member.value.end };
  }
  const element = container.elements![index]!;
  return { start: element.start, end: element.end };
}

// Appends a member or element after the container's last one, spaced like that one (or, in an empty
// container, on its own line at `depth`): exactly what removeChild takes out again.
function insertChild(text: string, container: JsonNode, child: { key?: string; value: unknown }, depth: number, unit: string): string {
  const count = container.members?.length ?? container.elements?.length ?? 0;
  if (count === 0) {
    const body = render(child, unit.repeat(depth), unit);
    return `${text.slice(0, container.start + 1)}\n${unit.repeat(depth)}${body}\n${unit.repeat(depth - 1)}${text.slice(container.end - 1)}`;
  }
  const last = childSpan(container, count - 1);
  let wsStart = last.start;
  while (wsStart > 0 && /\s/.test(text[wsStart - 1]!)) wsStart--;
  const spacing = text.slice(wsStart, last.start);
  const lineIndent = spacing.includes('\n') ? spacing.slice(spacing.lastIndexOf('\n') + 1) : '';
  // Siblings written on one line get a one-line value too.
  const body = spacing.includes('\n') ? render(child, lineIndent, unit) : render(child, '', '');
  return `${text.slice(0, last.end)},${spacing}${body}${text.slice(last.end)}`;
}

function render(child: { key?: string; value: unknown }, lineIndent: string, unit: string): string {
  const value = (unit === '' ? JSON.stringify(child.value) : JSON.stringify(child.value, null, unit)).split('\n').join(`\n${lineIndent}`);
  return child.key === undefined ? value : `${JSON.stringify(child.key)}: ${value}`;
}

// Takes one member or element out with the comma and spacing that joined it to its neighbour.
export function removeChild(text: string, container: JsonNode, index: number): string {
  const count = container.members?.length ?? container.elements?.length ?? 0;
  const child = childSpan(container, index);
  if (index > 0) return text.slice(0, childSpan(container, index - 1).end) + text.slice(child.end);
  if (count > 1) return text.slice(0, child.start) + text.slice(childSpan(container, 1).start);
  return text.slice(0, container.start + 1) + text.slice(container.end - 1);
}
