import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { IcError } from '../../core/errors';
import { hooksObjectOf, isOurHandler } from './json-hooks';
import { groupHandlers } from './hook-commands';

// Codex runs a project's hooks only when the user's config.toml trusts each one:
//   [hooks.state."<abs path of .codex/hooks.json>:<event>:<group index>:<handler index>"]
//   trusted_hash = "sha256:<hex>"
// The hash is Codex's own (openai/codex codex-rs/hooks/src/engine/discovery.rs, command_hook_hash, and
// codex-rs/config/src/fingerprint.rs, version_for_toml): the SHA-256 of the compact JSON, keys sorted at
// every level, of {event_name, matcher, hooks: [the one handler, normalised]}, with absent values dropped
// (it passes through TOML, which has no null) and the timeout defaulted to 600 and at least 1. Checked
// against Codex 0.169 (`codex app-server` hooks/list, and a real run) in test/clients.

export interface CodexHookTrust {
  key: string;
  hash: string;
}

type Json = Record<string, unknown>;

// "PreToolUse" → "pre_tool_use": the label Codex uses in keys and in the hashed identity.
export function codexEventLabel(event: string): string {
  return event.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const sorted: Json = {};
    for (const key of Object.keys(value).sort()) sorted[key] = canonical((value as Json)[key]);
    return sorted;
  }
  return value;
}

export function codexHookHash(event: string, matcher: string | undefined, handler: Json): string {
  const timeout = typeof handler.timeout === 'number' ? Math.max(1, handler.timeout) : typeof handler.timeout_sec === 'number' ? Math.max(1, handler.timeout_sec) : 600;
  const normalised: Json = { type: 'command', command: handler.command, timeout, async: handler.async === true };
  if (typeof handler.statusMessage === 'string') normalised.statusMessage = handler.statusMessage;
  const identity: Json = { event_name: codexEventLabel(event), hooks: [normalised] };
  if (matcher !== undefined) identity.matcher = matcher;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(canonical(identity)))
    .digest('hex')}`;
}

// The trust key and current hash of each of our handlers in a hooks.json text, as Codex would compute them.
export function codexHookTrusts(hooksJsonPath: string, text: string, names: readonly string[]): CodexHookTrust[] {
  const hooks = hooksObjectOf(text);
  if (hooks === undefined) return [];
  const trusts: CodexHookTrust[] = [];
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) continue;
    groups.forEach((group: unknown, groupIndex) => {
      const matcher = (group as { matcher?: unknown } | null)?.matcher;
      groupHandlers(group).forEach((handler: unknown, handlerIndex) => {
        if (!isOurHandler(handler, names)) return;
        trusts.push({
          key: `${hooksJsonPath}:${codexEventLabel(event)}:${groupIndex}:${handlerIndex}`,
          hash: codexHookHash(event, typeof matcher === 'string' ? matcher : undefined, handler as Json),
        });
      });
    });
  }
  return trusts;
}

// Codex's user config: $CODEX_HOME/config.toml, else ~/.codex/config.toml.
export function codexConfigPath(env: NodeJS.ProcessEnv): string {
  return join(env.CODEX_HOME || join(homedir(), '.codex'), 'config.toml');
}

// A TOML basic string (TOML 1.0 `basic-string`): `"` and `\` escaped, and every control character
// (C0, DEL, C1) as \b \t \n \f \r or \u00xx, since TOML forbids them raw (JSON.stringify left DEL raw, and
// a repository path containing DEL made config.toml unreadable). Lowercase hex, as JSON.stringify wrote
// C0 before, so entries written by earlier versions are still found. A lone surrogate has no TOML
// spelling at all: refused.
const TOML_SHORT_ESCAPES: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };
export function tomlString(value: string): string {
  if (/\p{Surrogate}/u.test(value)) throw new IcError('INVALID_INPUT', `cannot write ${JSON.stringify(value)} to TOML: it is not valid Unicode`);
  const escaped = value.replace(/[\p{Cc}"\\]/gu, (char) => TOML_SHORT_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

function sectionHeaders(key: string): string[] {
  const headers = [`[hooks.state.${tomlString(key)}]`];
  // Also found as a literal string, as a person may have written it (literal strings have no escapes).
  if (!/['\p{Cc}]/u.test(key)) headers.push(`[hooks.state.'${key}']`);
  return headers;
}

// Where the trust entry for `key` sits in the config text: the header line index and the end of its table.
function findSection(lines: string[], key: string): { header: number; end: number } | undefined {
  const headers = sectionHeaders(key);
  const header = lines.findIndex((line) => headers.includes(line.trim()));
  if (header < 0) return undefined;
  let end = header + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
  return { header, end };
}

export function trustedHash(configText: string, key: string): string | undefined {
  const lines = configText.split('\n');
  const section = findSection(lines, key);
  if (!section) return undefined;
  for (let i = section.header + 1; i < section.end; i++) {
    const match = /^\s*trusted_hash\s*=\s*"([^"]*)"/.exec(lines[i]!);
    if (match) return match[1];
  }
  return undefined;
}

// The config text with `trusted_hash` set for each entry: replaced in place where the table exists, else a
// new table appended. Every other byte stays as the user wrote it; the same text back when nothing changes.
export function withTrustEntries(configText: string, trusts: readonly CodexHookTrust[]): string {
  let lines = configText.split('\n');
  for (const trust of trusts) {
    const wanted = `trusted_hash = ${tomlString(trust.hash)}`;
    const section = findSection(lines, trust.key);
    if (section) {
      const at = lines.slice(section.header + 1, section.end).findIndex((line) => /^\s*trusted_hash\s*=/.test(line));
      if (at >= 0) lines[section.header + 1 + at] = wanted;
      else lines.splice(section.header + 1, 0, wanted);
      continue;
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    lines = [...lines, ...(lines.length > 0 ? [''] : []), sectionHeaders(trust.key)[0]!, wanted, ''];
  }
  const text = lines.join('\n');
  return text === configText ? configText : text.endsWith('\n') ? text : `${text}\n`;
}

// The config text without the trust tables for `keys`: each table goes with the blank line that
// withTrustEntries put before it, so install then uninstall gives the user's file back byte for byte.
export function withoutTrustEntries(configText: string, keys: readonly string[]): string {
  let lines = configText.split('\n');
  for (const key of keys) {
    const section = findSection(lines, key);
    if (!section) continue;
    const from = section.header > 0 && lines[section.header - 1]!.trim() === '' ? section.header - 1 : section.header;
    const to = section.end === lines.length && lines[section.end - 1] === '' && section.end - 1 > section.header ? section.end - 1 : section.end;
    lines = [...lines.slice(0, from), ...lines.slice(to)];
  }
  const text = lines.join('\n');
  return text === '\n' ? '' : text;
}
