import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program';
import { groupedHelp } from '../../src/cli/help/groups';
import { manPage } from '../../src/cli/help/man';
import { claudeEntries, codexEntries, type IcCommand } from '../../src/hooks/install/entries';
import { CLIENT_NAMES } from '../../src/hooks/install/clients';
import { mergeHookEntries } from '../../src/hooks/install/json-hooks';

// What the docs show of the installer and of doctor is checked against the code that writes and checks it, so
// neither can drift: the guide's hook JSON against what `ic coord install` writes, the help and the manual
// against the clients install knows, the reference's doctor check names against the checks in the code.

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const IC: IcCommand = { kind: 'path', bin: '/opt/ic/bin/ic' }; // the guide's "/opt/ic stands for where ic lives"

// The first ```json block after a heading of the guide.
function jsonAfter(markdown: string, heading: string): unknown {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `no heading "${heading}"`).toBeGreaterThan(-1);
  const block = /```json\n([\s\S]*?)\n```/.exec(markdown.slice(start));
  expect(block, `no json block after "${heading}"`).not.toBeNull();
  return JSON.parse(block![1]!);
}

interface Handler {
  type: string;
  command: string;
  timeout: number;
}
type HooksFile = { hooks: Record<string, { matcher?: string; hooks: Handler[] }[]> };

// An installed command is `'/opt/ic/bin/ic' coord hook NAME || { …what to say when ic is gone… }`; the guide
// shows its first part, so each is compared by that part.
function shown(file: HooksFile): HooksFile {
  const hooks = Object.fromEntries(
    Object.entries(file.hooks).map(([event, groups]) => [
      event,
      groups.map((group) => ({ ...group, hooks: group.hooks.map((handler) => ({ ...handler, command: handler.command.split(' || ')[0]! })) })),
    ]),
  );
  return { hooks };
}

describe('docs/guide.md shows what install writes', () => {
  const guide = read('docs/guide.md');

  it('the Claude Code hooks (install --claude, shell custody on)', () => {
    const written = JSON.parse(mergeHookEntries(undefined, claudeEntries(IC), '.claude/settings.local.json')) as HooksFile;
    expect(jsonAfter(guide, '### Claude Code')).toEqual(shown(written));
  });

  it('the Codex hooks (install --codex, shell custody on)', () => {
    const written = JSON.parse(mergeHookEntries(undefined, codexEntries(IC), '.codex/hooks.json')) as HooksFile;
    expect(jsonAfter(guide, '### Codex')).toEqual(shown(written));
  });
});

describe('the help and the manual name every client install wires in', () => {
  const program = buildProgram(() => {});
  const texts = { 'ic --help': groupedHelp(program, '0.0.0'), 'man ic': manPage(program, '0.0.0').replace(/\\-/g, '-') };
  for (const [where, text] of Object.entries(texts))
    it(where, () => {
      expect(Object.values(CLIENT_NAMES).filter((name) => !text.includes(name))).toEqual([]);
    });
});

describe('docs/reference.md lists every check of ic doctor', () => {
  // The modules that make doctor's checks: a check is `{ name: 'x', ok, … }` or `commandCheck('x', …)`.
  const sources = [
    ...readdirSync(join(ROOT, 'src', 'store'))
      .filter((file) => /health|doctor/.test(file))
      .map((file) => `src/store/${file}`),
    ...readdirSync(join(ROOT, 'src', 'store', 'postgres'))
      .filter((file) => /health|doctor/.test(file))
      .map((file) => `src/store/postgres/${file}`),
    ...readdirSync(join(ROOT, 'src', 'hooks', 'install'))
      .filter((file) => /doctor/.test(file))
      .map((file) => `src/hooks/install/${file}`),
    'src/cli/commands/doctor.ts',
  ];
  const inCode = new Set(sources.flatMap((file) => [...read(file).matchAll(/(?:\bname: |Check\()'([a-z][a-z_]*)'/g)].map((match) => match[1]!)));
  const reference = read('docs/reference.md');
  const section = reference.slice(reference.indexOf('### `ic doctor`'), reference.indexOf('\n### ', reference.indexOf('### `ic doctor`') + 1));

  it('finds the checks in the code (the scan itself works)', () => {
    expect(inCode.size).toBeGreaterThan(20);
    for (const name of ['location', 'integrity', 'claude_hooks', 'codex_trust', 'connection']) expect(inCode).toContain(name);
  });

  it('names each of them in the section of `ic doctor`', () => {
    expect([...inCode].filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
  });

  it('names no check the code does not make', () => {
    const listed = /Check names: ([^.]*?) \(/
      .exec(section.replace(/\n/g, ' '))![1]!
      .match(/`([a-z_]+)`/g)!
      .map((name) => name.slice(1, -1));
    expect(listed.filter((name) => !inCode.has(name))).toEqual([]);
  });
});
