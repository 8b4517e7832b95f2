import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program';
import { groupedHelp } from '../../src/cli/help/groups';
import { manPage } from '../../src/cli/help/man';
import { CLIENT_NAMES } from '../../src/hooks/install/clients';
import type { Engine } from '../../src/store/connection';

// What the help, the manual and the reference say of the installer and of doctor is checked against the code,
// so neither can drift: the help and the manual against the clients install knows and the engines the store
// has, the reference's doctor check names against the checks in the code. The hook JSON and tables of the
// guide and docs/agents.md are checked against a real install in test/e2e/install-docs.test.ts.

const ROOT = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('the help and the manual name every client install wires in', () => {
  const program = buildProgram(() => {});
  const texts = { 'ic --help': groupedHelp(program, '0.0.0'), 'man ic': manPage(program, '0.0.0').replace(/\\-/g, '-') };
  for (const [where, text] of Object.entries(texts))
    it(where, () => {
      expect(Object.values(CLIENT_NAMES).filter((name) => !text.includes(name))).toEqual([]);
    });
});

describe('the manual says what the database is and names every command', () => {
  const man = manPage(
    buildProgram(() => {}),
    '0.0.0',
  ).replace(/\\-/g, '-');
  // Typed by the store's engines: a new engine does not compile until the manual's wording is checked for it.
  const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

  it('DESCRIPTION names each engine the store has, not "one SQLite file" only', () => {
    const description = man.slice(man.indexOf('.SH DESCRIPTION'), man.indexOf('.SH', man.indexOf('.SH DESCRIPTION') + 1));
    expect(Object.values(ENGINE_NAMES).filter((name) => !description.includes(name))).toEqual([]);
    expect(description).not.toMatch(/one SQLite file per repository/);
  });

  it('SYNOPSIS names every top-level command that is not hidden', () => {
    const synopsis = man.slice(man.indexOf('.SH SYNOPSIS'), man.indexOf('.SH DESCRIPTION'));
    const commands = buildProgram(() => {})
      .commands.filter((command) => !(command as unknown as { _hidden: boolean })._hidden)
      .map((command) => command.aliases()[0] ?? command.name());
    expect(commands.filter((name) => !new RegExp(`[\\[|] ${name} [|\\]]`).test(synopsis))).toEqual([]);
  });
});

describe('docs/reference.md lists every check of ic doctor', () => {
  // The modules that make doctor's checks: a check is `{ name: 'x', ok, … }`, `failed('x', …)` or `commandCheck('x', …)`.
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
  const inCode = new Set(sources.flatMap((file) => [...read(file).matchAll(/(?:\bname: |Check\(|\bfailed\(\s*)'([a-z][a-z_]*)'/g)].map((match) => match[1]!)));
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
