import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program';
import { EXIT_CODES } from '../../src/cli/exit-codes';
import { HOOK_NAMES } from '../../src/hooks/run';

// docs/reference.md is written by hand from the code; these checks make the code's interface fail the
// build when it grows something the reference does not describe. Each failure lists exactly what is missing.

const ROOT = join(__dirname, '..', '..');
const REFERENCE = readFileSync(join(ROOT, 'docs', 'reference.md'), 'utf8');

// Flags every command takes: documented once, in the "Common flags" section, not under each command.
const COMMON_FLAGS = new Set(['--db', '--scope', '--json', '--format', '--color']);

interface Section {
  heading: string;
  level: number;
  body: string;
}

// The reference cut at its headings: each section runs to the next heading of the same or a higher level.
function sections(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const heads: { index: number; level: number; heading: string }[] = [];
  let fenced = false;
  lines.forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    const match = fenced ? null : /^(#{1,6})\s+(.*)$/.exec(line);
    if (match) heads.push({ index, level: match[1]!.length, heading: match[2]!.trim() });
  });
  return heads.map((head, i) => {
    const next = heads.slice(i + 1).find((h) => h.level <= head.level);
    return { heading: head.heading, level: head.level, body: lines.slice(head.index, next ? next.index : lines.length).join('\n') };
  });
}

const SECTIONS = sections(REFERENCE);

function sectionTitled(title: string): Section | undefined {
  return SECTIONS.find((section) => section.heading === title);
}

// How a command is written in its heading: `coord NAME` under the coordination group, `ic NAME` elsewhere.
function invocation(path: string[]): string {
  if (path.length === 0) return 'ic';
  if (path[0] === 'coordination') return path.length === 1 ? 'ic coordination' : `coord ${path.slice(1).join(' ')}`;
  return `ic ${path.join(' ')}`;
}

interface Walked {
  command: Command;
  path: string[];
}

function walk(command: Command, path: string[] = []): Walked[] {
  return [{ command, path }, ...command.commands.flatMap((child) => walk(child, [...path, child.name()]))];
}

// The heading of a command's own section starts with its invocation in code: "### `coord reserve` …".
function commandSection(path: string[]): Section | undefined {
  const code = `\`${invocation(path)}\``;
  return SECTIONS.find((section) => section.heading === code || section.heading.startsWith(`${code} `));
}

// A flag is documented by a row of a flag table: the row's first cell names it ("| `-w, --wait <duration>` |").
function hasFlagRow(text: string, flag: string): boolean {
  return text.split('\n').some((line) => {
    const cell = /^\|([^|]*)\|/.exec(line)?.[1];
    return cell !== undefined && new RegExp(`\`[^\`]*${flag.replace(/-/g, '\\-')}(?![A-Za-z0-9-])`).test(cell);
  });
}

const COMMANDS = walk(buildProgram(() => {}));

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const SOURCES = [...filesUnder(join(ROOT, 'src')), ...filesUnder(join(ROOT, 'bin'))].map((file) => ({ file, text: readFileSync(file, 'utf8') }));

describe('docs/reference.md covers the command tree', () => {
  it('walks a real tree (the walk itself is not empty)', () => {
    const paths = COMMANDS.map((c) => invocation(c.path));
    expect(paths).toContain('coord reserve');
    expect(paths).toContain('ic doctor');
    expect(COMMANDS.length).toBeGreaterThan(20);
  });

  it('gives every command and subcommand its own section, headed by its invocation', () => {
    const missing = COMMANDS.filter((c) => c.path.length > 0 && commandSection(c.path) === undefined).map((c) => `${invocation(c.path)}: no section headed \`${invocation(c.path)}\``);
    expect(missing, `commands without a section in docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('names every alias of a command in its section', () => {
    const missing: string[] = [];
    for (const { command, path } of COMMANDS) {
      const section = path.length > 0 ? commandSection(path) : undefined;
      if (!section) continue;
      for (const alias of command.aliases()) if (!new RegExp(`\\b${alias}\\b`).test(section.body)) missing.push(`${invocation(path)}: alias ${alias}`);
    }
    expect(missing, `aliases missing from docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('documents every long flag of every command in a flag-table row of that command\'s section (common flags once, in "Common flags")', () => {
    const common = sectionTitled('Common flags');
    expect(common, 'docs/reference.md needs a "## Common flags" section').toBeDefined();
    const missing = new Set<string>();
    for (const { command, path } of COMMANDS) {
      const section = path.length > 0 ? commandSection(path) : common;
      for (const option of command.options) {
        const flag = option.long;
        if (!flag) continue;
        if (COMMON_FLAGS.has(flag) || path.length === 0) {
          if (!common || !hasFlagRow(common.body, flag)) missing.add(`${flag} (a row in the "Common flags" table)`);
        } else if (!section || !hasFlagRow(section.body, flag)) {
          missing.add(`${invocation(path)} ${flag}`);
        }
      }
    }
    expect([...missing], `flags without a row in their command's flag table in docs/reference.md:\n${[...missing].join('\n')}`).toEqual([]);
  });

  it("documents every short flag beside its long form in the command's section", () => {
    const missing: string[] = [];
    for (const { command, path } of COMMANDS) {
      const section = path.length > 0 ? commandSection(path) : sectionTitled('Common flags');
      for (const option of command.options) {
        if (option.short && !(section && hasFlagRow(section.body, option.short))) missing.push(`${invocation(path)} ${option.short} (${option.long})`);
      }
    }
    expect(missing, `short flags missing from docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('documents the flags the reference describes and the CLI really has (no stale flag in a command section)', () => {
    const stale: string[] = [];
    for (const { command, path } of COMMANDS) {
      if (path.length === 0) continue;
      const section = commandSection(path);
      if (!section) continue;
      const own = new Set(command.options.map((o) => o.long));
      // Only the flag table of the section counts: prose may mention other commands' flags.
      const rows = section.body.split('\n').filter((line) => /^\|\s*`-/.test(line));
      for (const row of rows) {
        const flags = [...row.split('|')[1]!.matchAll(/`(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
        for (const flag of flags) if (!own.has(flag) && !COMMON_FLAGS.has(flag)) stale.push(`${invocation(path)} ${flag}`);
      }
    }
    expect(stale, `flags documented in docs/reference.md that the CLI does not have:\n${stale.join('\n')}`).toEqual([]);
  });
});

describe('docs/reference.md covers codes, variables, events and hooks', () => {
  it('lists every error code with the exit code the code maps it to', () => {
    const wrong = Object.entries(EXIT_CODES)
      .filter(([code, exit]) => !new RegExp(`^\\|\\s*\`${code}\`\\s*\\|\\s*${exit}\\s*\\|`, 'm').test(REFERENCE))
      .map(([code, exit]) => `${code} → ${exit}`);
    expect(wrong, `error codes without a "| \`CODE\` | EXIT |" row in docs/reference.md:\n${wrong.join('\n')}`).toEqual([]);
  });

  it("lists every error code a `new IcError('CODE'` in src/ raises", () => {
    const used = new Set(SOURCES.flatMap(({ text }) => [...text.matchAll(/new IcError\(\s*'([A-Z_]+)'/g)].map((m) => m[1]!)));
    expect(used.size).toBeGreaterThan(5);
    const missing = [...used].filter((code) => !REFERENCE.includes(`\`${code}\``));
    expect(missing, `error codes raised in src/ but missing from docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('names every IC_* variable that src/ or bin/ mentions', () => {
    const names = new Set(SOURCES.flatMap(({ text }) => [...text.matchAll(/\bIC_[A-Z][A-Z_]*[A-Z]\b/g)].map((m) => m[0])));
    expect(names.has('IC_OWNER')).toBe(true);
    const missing = [...names].filter((name) => !new RegExp(`\\b${name}\\b`).test(REFERENCE)).sort();
    expect(missing, `IC_* names used in src/ or bin/ but missing from docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('describes every event type the store can write, in the "Events" section', () => {
    const union = /export type EventType =\s*([^;]+);/.exec(readFileSync(join(ROOT, 'src', 'store', 'events.ts'), 'utf8'));
    const types = [...union![1]!.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);
    expect(types.length).toBeGreaterThan(5);
    const events = sectionTitled('Events');
    expect(events, 'docs/reference.md needs an "## Events" section').toBeDefined();
    const missing = types.filter((type) => !new RegExp(`^\\|\\s*\`${type}\``, 'm').test(events!.body));
    expect(missing, `event types without a row in the Events section of docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('gives every hook name its own heading in the "Hooks" section', () => {
    const hooks = sectionTitled('Hooks');
    expect(hooks, 'docs/reference.md needs a "## Hooks" section').toBeDefined();
    const missing = HOOK_NAMES.filter((name) => !new RegExp(`^#{3,4} \`${name}\``, 'm').test(hooks!.body));
    expect(missing, `hooks without a heading in the Hooks section of docs/reference.md:\n${missing.join('\n')}`).toEqual([]);
  });
});
