import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ic, makeTempRepo, REPO_ROOT, type TempRepo } from '../support/cli';
import { CLIENT_NAMES } from '../../src/hooks/install/clients';

// What the docs show of the installer, checked against what `ic coord install` really writes into a temp
// repository: the guide's hook JSON of Claude Code and Codex, docs/agents.md's JSON, hook tables and client
// table for the other five, and the files README and the reference name per install flag. A page that lists
// 7 events where install writes 10 fails here, whichever of the two changed.

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const GUIDE = read('docs/guide.md');
const AGENTS = read('docs/agents.md');
const README = read('README.md');
const REFERENCE = read('docs/reference.md');

type Client = keyof typeof CLIENT_NAMES;
const CLIENTS = Object.keys(CLIENT_NAMES) as Client[];
// Where each client's files go in the project (docs/agents.md).
const HOME_DIR: Record<Client, string> = { claude: '.claude/', codex: '.codex/', gemini: '.gemini/', copilot: '.github/hooks/', opencode: '.opencode/', pi: '.pi/', cline: '.clinerules/' };

// A markdown section: from its heading line to the next heading of the same or a higher level (fences skipped).
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const level = /^#+/.exec(heading)![0].length;
  const start = lines.indexOf(heading);
  expect(start, `no heading "${heading}"`).toBeGreaterThan(-1);
  let fenced = false;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.startsWith('```')) fenced = !fenced;
    const next = fenced ? null : /^(#+) /.exec(lines[i]!);
    if (next && next[1]!.length <= level) return lines.slice(start, i).join('\n');
  }
  return lines.slice(start).join('\n');
}

function jsonIn(text: string): unknown {
  const block = /```json\n([\s\S]*?)\n```/.exec(text);
  expect(block, 'no json block').not.toBeNull();
  return JSON.parse(block![1]!);
}

// The body rows of the first table in the text, as cells.
function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  expect(start, 'no table').toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++)
    rows.push(
      lines[i]!.slice(1, -1)
        .split(/ \|(?= )/)
        .map((cell) => cell.trim()),
    ); // a `|` inside code has no space before it
  return rows;
}

const codes = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

// An installed command is `'<node>' '<this checkout>/bin/ic' coord hook NAME || { …what to say when ic is gone… }`;
// the docs show `'/opt/ic/bin/ic' coord hook NAME` ("/opt/ic stands for where ic lives", the Node.js in front
// said in words), so each string is compared by that.
function shown(value: unknown): unknown {
  if (typeof value === 'string') {
    const hook = / coord hook ([a-z-]+) \|\| \{ /.exec(value);
    if (!hook) return value;
    expect(value).toMatch(/^'[^']*\/node' '[^']*\/bin\/ic' coord hook /);
    return `'/opt/ic/bin/ic' coord hook ${hook[1]}`;
  }
  if (Array.isArray(value)) return value.map(shown);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shown(inner)]));
  return value;
}

const repos: TempRepo[] = [];
const homes: string[] = [];

// `ic coord install FLAGS` in a fresh temp repository (a scratch HOME, no trust recorded): every file it wrote
// in the work tree, by path relative to the root.
async function install(flags: string[]): Promise<Map<string, string>> {
  const repo = makeTempRepo('ic-install-docs-');
  repos.push(repo);
  const home = mkdtempSync(join(tmpdir(), 'ic-install-docs-home-'));
  homes.push(home);
  const run = await ic(repo, ['coord', 'install', ...flags, '--no-trust'], { env: { HOME: home, CODEX_HOME: join(home, '.codex'), PI_CODING_AGENT_DIR: undefined, CLINE_DATA_DIR: undefined } });
  expect(run.exitCode, run.stderr).toBe(0);
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path === join(repo.dir, '.git')) continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(repo.dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(repo.dir);
  return files;
}

let all: Map<string, string>;
beforeAll(async () => {
  all = await install(CLIENTS.map((client) => `--${client}`));
});
afterAll(() => {
  for (const repo of repos) repo.cleanup();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

const json = (files: Map<string, string>, file: string) => {
  expect([...files.keys()]).toContain(file);
  return shown(JSON.parse(files.get(file)!));
};
const filesOf = (client: Client) => [...all.keys()].filter((file) => file.startsWith(HOME_DIR[client]));

describe('the hook JSON the docs show is what install writes', () => {
  it('Claude Code (docs/guide.md): .claude/settings.local.json', () => {
    expect(jsonIn(section(GUIDE, '### Claude Code'))).toEqual(json(all, '.claude/settings.local.json'));
  });

  it('Codex (docs/guide.md): .codex/hooks.json', () => {
    expect(jsonIn(section(GUIDE, '### Codex'))).toEqual(json(all, '.codex/hooks.json'));
  });

  it('Gemini CLI (docs/agents.md): .gemini/settings.json', () => {
    expect(jsonIn(section(AGENTS, '## Gemini CLI'))).toEqual(json(all, '.gemini/settings.json'));
  });

  it('GitHub Copilot CLI (docs/agents.md): .github/hooks/ic.json', () => {
    expect(jsonIn(section(AGENTS, '## GitHub Copilot CLI'))).toEqual(json(all, '.github/hooks/ic.json'));
  });
});

describe("the guide's install variants", () => {
  type Hooks = { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };
  const documented = (heading: string) => jsonIn(section(GUIDE, heading)) as Hooks;
  const names = (groups: Hooks['hooks'][string] | undefined) => (groups ?? []).flatMap((group) => group.hooks.map((hook) => hook.command.split(' coord hook ')[1]));

  it('Claude Code --no-shell: "leaves out the `Bash` entry and `PostToolUse`"', async () => {
    const expected = documented('### Claude Code');
    expected.hooks.PreToolUse = expected.hooks.PreToolUse!.filter((group) => group.matcher !== 'Bash');
    delete expected.hooks.PostToolUse;
    expect(json(await install(['--claude', '--no-shell']), '.claude/settings.local.json')).toEqual(expected);
  });

  it('Claude Code --git-index: "adds a `SessionStart` entry (`claude-git-index`)"', async () => {
    const written = json(await install(['--claude', '--git-index']), '.claude/settings.local.json') as Hooks;
    const before = documented('### Claude Code');
    expect(names(written.hooks.SessionStart)).toEqual(['claude-git-index', ...names(before.hooks.SessionStart)]);
    written.hooks.SessionStart = written.hooks.SessionStart!.filter((group) => !names([group]).includes('claude-git-index'));
    expect(written).toEqual(before);
  });

  it('Codex --no-shell: "leaves out the shell entry, `PostToolUse`, `Stop` and `UserPromptSubmit`, and the edit entry then matches `Bash` too"', async () => {
    const written = json(await install(['--codex', '--no-shell']), '.codex/hooks.json') as Hooks;
    const expected = documented('### Codex');
    const [edit, ...rest] = expected.hooks.PreToolUse!;
    expect(names(rest)).toEqual(['codex-pre-shell']);
    delete expected.hooks.PostToolUse;
    delete expected.hooks.Stop;
    delete expected.hooks.UserPromptSubmit;
    expected.hooks.PreToolUse = [edit!];
    const matcher = written.hooks.PreToolUse?.[0]?.matcher ?? '';
    expect(new Set(matcher.split('|'))).toEqual(new Set([...edit!.matcher!.split('|'), 'Bash']));
    edit!.matcher = matcher;
    expect(written).toEqual(expected);
  });
});

describe("docs/agents.md's hook tables are what install writes", () => {
  // The ic hooks a plugin or extension calls: `hook('NAME', …)`.
  const called = (text: string) => new Set([...text.matchAll(/\bhook\('([a-z]+-[a-z-]+)'/g)].map((match) => match[1]!));

  it('OpenCode: .opencode/plugin/ic.js, its events and hooks', () => {
    expect(filesOf('opencode')).toEqual(['.opencode/plugin/ic.js']);
    const plugin = all.get('.opencode/plugin/ic.js')!;
    const rows = tableRows(section(AGENTS, '## OpenCode'));
    expect(new Set(rows.map((row) => codes(row[1]!)[0]))).toEqual(called(plugin));
    expect(new Set(rows.flatMap((row) => codes(row[0]!)))).toEqual(new Set([...plugin.matchAll(/^\s*'([a-z.]+)': async/gm)].map((match) => match[1]!)));
  });

  it('pi: .pi/extensions/ic.ts, its events and hooks', () => {
    expect(filesOf('pi')).toEqual(['.pi/extensions/ic.ts']);
    const extension = all.get('.pi/extensions/ic.ts')!;
    const rows = tableRows(section(AGENTS, '## pi'));
    expect(new Set(rows.map((row) => codes(row[1]!)[0]))).toEqual(called(extension));
    for (const [event, hook] of rows) expect(extension).toMatch(new RegExp(`pi\\.on\\('${codes(event!)[0]}'[^\\n]*\\n[^\\n]*hook\\('${codes(hook!)[0]}'`));
    expect(rows.length).toBe([...extension.matchAll(/pi\.on\('/g)].length);
  });

  it('Cline CLI: one file per event in .clinerules/hooks/, each calling its hook', () => {
    const rows = tableRows(section(AGENTS, '## Cline CLI'));
    expect(new Set(filesOf('cline'))).toEqual(new Set(rows.map((row) => `.clinerules/hooks/${codes(row[0]!)[0]}`)));
    for (const [file, hook] of rows) expect(shown(all.get(`.clinerules/hooks/${codes(file!)[0]}`)!.split('\n')[2]!)).toBe(`'/opt/ic/bin/ic' coord hook ${codes(hook!)[0]}`);
  });

  it('the table of the seven clients: one row each, its install flag, and session-end events install wires', () => {
    const rows = tableRows(AGENTS);
    expect(rows.map((row) => /--([a-z]+)/.exec(row[2]!)![1])).toEqual(CLIENTS);
    for (const [index, client] of CLIENTS.entries()) {
      const written = filesOf(client)
        .map((file) => `${file}\n${all.get(file)}`)
        .join('\n');
      for (const event of codes(rows[index]![6]!)) expect(written, `${client}: ${event}`).toContain(event);
    }
  });
});

describe('the client versions the docs name are the pinned ones (test/clients/versions.json)', () => {
  const pinned = JSON.parse(read('test/clients/versions.json')) as Record<Client, { package: string; version: string }>;

  it("docs/agents.md's table: each client's package and tested version", () => {
    expect(tableRows(AGENTS).map((row) => [codes(row[0]!)[0], row[1]])).toEqual(CLIENTS.map((client) => [pinned[client].package, pinned[client].version]));
  });

  it("README's and the guide's tested versions (README: the five adapted clients; the guide: Claude Code and Codex)", () => {
    const named = `${/tested with ([^)]*)\)/.exec(README)![1]} ${/Tested versions: (.*?), pinned in/s.exec(GUIDE)![1]}`;
    expect(CLIENTS.filter((client) => !named.includes(pinned[client].version))).toEqual([]);
  });
});

describe('the files README and the reference name per install flag are the ones install writes', () => {
  it('README: `ic coord install --CLIENT  # FILE`', () => {
    const lines = [...README.matchAll(/^ic coord install --([a-z]+)[^#\n]*# (\.[^\s;,]+)/gm)];
    expect(lines.map((line) => line[1])).toEqual(['gemini', 'copilot', 'opencode', 'pi', 'cline']);
    for (const [, client, file] of lines) expect(filesOf(client as Client), client).toContain(file);
  });

  it('docs/reference.md, `coord install`: the row of each client flag', () => {
    const rows = tableRows(section(REFERENCE, '### `coord install`'));
    for (const client of CLIENTS) {
      const row = rows.find((cells) => cells[0] === `\`--${client}\``);
      const named = codes(row?.[2] ?? '').filter((code) => code.startsWith('.') && code.includes('/') && !code.startsWith('.git/'));
      expect(named.length, client).toBeGreaterThan(0);
      for (const file of named) expect(filesOf(client), client).toContain(file);
    }
  });

  it('every client has files, and nothing else is written in the work tree', () => {
    for (const client of CLIENTS) expect(filesOf(client).length, client).toBeGreaterThan(0);
    expect([...all.keys()].filter((file) => !CLIENTS.some((client) => file.startsWith(HOME_DIR[client])))).toEqual([]);
  });
});

describe('the lines that say what a plain `ic coord install` wires in name all seven clients', () => {
  // "GitHub Copilot CLI" is "Copilot CLI" there, "Cline CLI" "Cline".
  const short = Object.values(CLIENT_NAMES).map((name) => name.replace(/^GitHub /, '').replace(/ CLI$/, ''));
  for (const [page, text] of [
    ['README.md', README],
    ['docs/guide.md', GUIDE],
  ] as const)
    it(page, () => {
      const line = /^ic coord install +# [^\n]*agents found here \(([^)]*)\)/m.exec(text);
      expect(line, 'no such line').not.toBeNull();
      expect(short.filter((name) => !new RegExp(`\\b${name}\\b`).test(line![1]!))).toEqual([]);
    });
});
