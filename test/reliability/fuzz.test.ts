// Hostile input through the real bin: random argv, patterns, durations, owners, environment, and hook
// payloads. Claims: only documented exit codes (0 1 64 65 69 75; never 2; 70 is a bug), exactly one JSON
// document on stdout (hooks: none or one), never a stack trace, and a failed command leaves the database
// as it was. FUZZ_CLI_RUNS / FUZZ_HOOK_RUNS / FUZZ_SEED raise the run count or replay a seed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { IC_BIN, REPO_ROOT, ic, makeTempRepo, runBin, type RunResult, type TempRepo } from '../support/cli';

const CLI_RUNS = Number(process.env.FUZZ_CLI_RUNS ?? 100);
const HOOK_RUNS = Number(process.env.FUZZ_HOOK_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const DOCUMENTED_EXITS = [0, 1, 64, 65, 69, 75];
const STACK = /^\s+at .+(\(.+:\d+:\d+\)|:\d+:\d+)$/m;

let repo: TempRepo;
let home: string;
beforeAll(async () => {
  repo = makeTempRepo('ic-fuzz-');
  home = mkdtempSync(join(tmpdir(), 'ic-fuzz-home-'));
  mkdirSync(join(repo.dir, 'src'));
  const alice = { env: { IC_OWNER: 'alice' } };
  await ic(repo, ['coord', 'reserve', 'src/**', '--ttl', '1h'], alice);
  await ic(repo, ['coord', 'reserve', 'docs/*.md', '--shared'], { env: { IC_OWNER: 'bob' } });
  await ic(repo, ['coord', 'lock', 'tests', '--ttl', '1h'], alice);
  await ic(repo, ['coord', 'claim', 'issue-7'], { env: { IC_OWNER: 'carol' } });
});
afterAll(() => {
  repo.cleanup();
  rmSync(home, { recursive: true, force: true });
});

// The database's content, table by table. Conflict events are left out: a refused reserve records who it
// collided with by design (`ic coord stats`), and that is the only write a failed command makes.
function dump(): string {
  const db = new Database(repo.db, { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    // Rows compared as sorted JSON: some tables are WITHOUT ROWID, so there is no one column to order by.
    const rows = (name: string) =>
      (db.prepare(name === 'events' ? "SELECT * FROM events WHERE type <> 'conflict'" : `SELECT * FROM "${name}"`).all() as unknown[]).map((row) => JSON.stringify(row)).sort();
    return JSON.stringify(tables.map((name) => [name, rows(name)]));
  } finally {
    db.close();
  }
}

const noNul = (s: string) => s.replace(/\u0000/g, '');
const text = fc
  .oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('', ' ', '-', '--x', '-1', '0', 'NaN', '1e309', '$(touch pwned)', '`id`', '; rm -rf ~', '\n', '\t', 'é', 'e\u0301', '..', '/', '\\'),
    fc.string({ maxLength: 3 }).map((s) => s.repeat(400)),
  )
  .map(noNul);
const pattern = fc.oneof(
  fc.constantFrom(
    'src/**',
    '**',
    '*',
    'src/*.ts',
    'src/{a,b}.ts',
    'src/[a-z].ts',
    '[',
    ']',
    '{',
    '}',
    '{a,{b,{c}}}',
    '+(a)',
    '@(x)',
    '!(y)',
    '\\',
    'a\\',
    '../x',
    '../../etc/passwd',
    '/etc/passwd',
    './src//a.ts',
    'src/',
    '[!]',
    '[^a]',
    '[z-a]',
    '**/**/**/**',
    '{,}',
    'a{1..9}',
  ),
  fc.array(fc.constantFrom('*', '**', '?', '[ab]', '{x,y}', 'a', '.', '..', '\\*', '[!a]', '{'), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(fc.sample(fc.constantFrom('/', ''), 1)[0])),
  fc.constantFrom('{a,b}').map((s) => Array(40).fill(s).join('/')),
  fc.constantFrom('*').map((s) => `${s}a`.repeat(200)),
  text,
);
const duration = fc.oneof(fc.constantFrom('90s', '15m', '2h', '1d', '24h', '25h', '0', '0s', '-5s', '1.5m', '1e3', 'NaN', '10', '999999999999', '1ms', '', ' 5m', '5 m', '∞'), text);
const waitDuration = fc.constantFrom('0', '1', '50ms', '-1', 'abc', '', '1e2ms', '0.2s', '25h');
const owner = fc.oneof(fc.constantFrom('alice', 'bob', 'carol', 'x'.repeat(128), 'x'.repeat(129), ' ', 'tab\there', 'new\nline', 'ünïcödé', '🙂'), text);
const scope = fc.constantFrom('.', '..', '/', 'src', '/nonexistent', 'no/such/dir');
const id = fc.oneof(fc.constantFrom('abcdefgh', 'ABCDEFGH', '12345678', 'short', '0'.repeat(9)), fc.stringMatching(/^[0-9a-z]{8}$/), text);

const flag = fc.oneof(
  owner.map((o) => ['--owner', o]),
  duration.map((d) => ['--ttl', d]),
  waitDuration.map((d) => ['--wait', d]),
  scope.map((s) => ['--scope', s]),
  text.map((r) => ['--reason', r]),
  pattern.map((p) => ['--pattern', p]),
  duration.map((d) => ['--since', d]),
  duration.map((d) => ['--expiring', d]),
  duration.map((d) => ['--older-than', d]),
  text.map((n) => ['--limit', n]),
  text.map((n) => ['--type', n]),
  owner.map((o) => ['--from', o]),
  owner.map((o) => ['--to', o]),
  text.map((n) => ['--consumer', n]),
  fc.constantFrom(
    ['--shared'],
    ['--all'],
    ['--force'],
    ['--dry-run'],
    ['--active'],
    ['--all-scopes'],
    ['--json'],
    ['--nope'],
    ['-x'],
    ['--owner'],
    ['--ttl'],
    ['--owner='],
    ['--ttl=1m'],
    ['--shared=yes'],
  ),
);

// A command line: a real subcommand (mostly) with random positionals and flags. Never `--` (so `lock` runs
// no command), never --follow (it runs until killed), never --help or -V (help and version print text, not
// JSON, even when piped: a known deviation from docs/reference.md, like most CLIs).
const SUBCOMMANDS = [
  'reserve',
  'check',
  'release',
  'renew',
  'list',
  'verify',
  'overlap',
  'transfer',
  'sweep',
  'lock',
  'unlock',
  'claim',
  'unclaim',
  'who',
  'heartbeat',
  'events',
  'stats',
  'statusline',
];
const argv = fc
  .tuple(
    fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...SUBCOMMANDS) }, { weight: 1, arbitrary: text }),
    fc.array(fc.oneof(pattern, id, text), { maxLength: 3 }),
    fc.array(flag, { maxLength: 4 }),
    fc.constantFrom(['coord'], ['coordination'], [], ['doctor'], ['init']),
  )
  .map(([sub, positionals, flags, prefix]) => {
    const head = prefix.length === 1 && (prefix[0] === 'doctor' || prefix[0] === 'init') ? prefix : [...prefix, sub];
    const rest = sub === 'lock' ? positionals.slice(0, 1) : positionals;
    return [...head, ...rest, ...flags.flat()].filter((arg) => arg !== '--' && arg !== '--follow' && arg !== '--help' && arg !== '-h' && arg !== 'help' && arg !== '-V' && arg !== '--version');
  });

const environment = fc.record(
  {
    IC_OWNER: owner,
    IC_NOW: fc.oneof(
      fc.constantFrom('2030-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '0', '-1', 'yesterday', '99999999999999999999', '2026-13-45T99:00:00Z', ''),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    ),
    IC_LOCK_DELAY: duration,
    IC_BUSY_TIMEOUT: fc.constantFrom('0', '1s', 'abc', '-1', ''),
  },
  { requiredKeys: [] },
);

function expectWellBehaved(result: RunResult, what: string, opts: { hook: boolean }): void {
  const context = `${what}\nexit ${result.exitCode}\nstdout: ${result.stdout.slice(0, 500)}\nstderr: ${result.stderr.slice(0, 500)}`;
  expect(result.exitCode, `exit 70 is a bug: ${context}`).not.toBe(70);
  expect(opts.hook ? [0, 1] : DOCUMENTED_EXITS, context).toContain(result.exitCode);
  expect(`${result.stdout}\n${result.stderr}`, `stack trace: ${context}`).not.toMatch(STACK);
  if (opts.hook && result.stdout === '') return;
  expect(result.stdout.trim().includes('\n'), `not one JSON line (execa strips the final newline): ${context}`).toBe(false);
  expect(() => JSON.parse(result.stdout), `not JSON: ${context}`).not.toThrow();
}

// A statusline that ran prints one plain line for Claude Code (JSON only with --json); usage errors are JSON.
function expectStatusLine(result: RunResult, what: string): void {
  const context = `${what}\nexit ${result.exitCode}\nstdout: ${result.stdout.slice(0, 500)}\nstderr: ${result.stderr.slice(0, 500)}`;
  expect(result.stdout, context).toMatch(/^ic: [^\n]*$/);
  expect(`${result.stdout}\n${result.stderr}`, `stack trace: ${context}`).not.toMatch(STACK);
}

describe('hostile input through the real bin', () => {
  it(
    `random argv and environment (${CLI_RUNS} runs)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(argv, environment, async (args, env) => {
          const before = dump();
          const result = await runBin(IC_BIN, args, { cwd: repo.dir, env: { ...env, HOME: home }, timeout: 20_000 });
          const what = `ic ${JSON.stringify(args)} env ${JSON.stringify(env)}`;
          const statusLine = ['coordination', 'coord'].includes(args[0]!) && args[1] === 'statusline' && !args.includes('--json') && result.exitCode === 0;
          if (statusLine) expectStatusLine(result, what);
          else expectWellBehaved(result, what, { hook: false });
          if (result.exitCode !== 0) expect(dump(), `a failed command changed the database: ${what}\n${result.stdout}`).toBe(before);
        }),
        { numRuns: CLI_RUNS, seed: SEED, endOnFailure: true },
      );
    },
    30_000 + CLI_RUNS * 1_500,
  );

  const fixtures = readdirSync(join(REPO_ROOT, 'test/fixtures/hooks'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => readFileSync(join(REPO_ROOT, 'test/fixtures/hooks', f), 'utf8'));
  const path = fc
    .oneof(fc.constantFrom('src/a.ts', 'docs/x.md', '../outside.ts', '/etc/passwd', '', '.', '$(touch pwned)', 'a`id`.ts', 'a\nb.ts', 'src/**', 'x'.repeat(5000)), text)
    .map((p) => (p.startsWith('/') || p === '' ? p : `__CWD__/${p}`));
  const payload = fc.oneof(
    // A real payload with one field replaced by something hostile.
    fc.tuple(fc.constantFrom(...fixtures), fc.constantFrom('session_id', 'cwd', 'tool_name', 'tool_input', 'file_path'), fc.oneof(fc.jsonValue(), path)).map(([fixture, key, value]) => {
      const json = JSON.parse(fixture);
      if (key === 'file_path' && json.tool_input && typeof json.tool_input === 'object') json.tool_input.file_path = value;
      else json[key] = value;
      return JSON.stringify(json);
    }),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    text,
    fc.constantFrom('', '{', '[]', 'null', '{"tool_input": null}', '\u0000\u0001', '{"session_id": {"a": 1}}', `{"a": "${'x'.repeat(3_000_000)}"}`),
  );
  const hook = fc.constantFrom('claude-pre-edit', 'codex-pre-edit', 'claude-session-start', 'claude-session-end', 'git-pre-commit');

  it(
    `random hook payloads (${HOOK_RUNS} runs)`,
    async () => {
      await fc.assert(
        fc.asyncProperty(hook, payload, fc.constantFrom(undefined, 'closed', 'open', 'nonsense'), async (name, raw, fail) => {
          const input = raw.replaceAll('__CWD__', repo.dir);
          const before = dump();
          const env = { HOME: home, IC_HOOK_FAIL: fail, CLAUDE_ENV_FILE: join(home, 'claude-env') };
          const result = await runBin(IC_BIN, ['coord', 'hook', name], { cwd: repo.dir, env, input, timeout: 20_000 });
          const what = `hook ${name} IC_HOOK_FAIL=${fail} stdin ${JSON.stringify(input.slice(0, 300))}`;
          expectWellBehaved(result, what, { hook: true });
          let parsed: unknown;
          try {
            parsed = JSON.parse(input);
          } catch {
            parsed = undefined;
          }
          // A payload that is not a JSON object can name no file and no session: nothing may change.
          if (parsed === undefined || parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) expect(dump(), `changed the database: ${what}`).toBe(before);
        }),
        { numRuns: HOOK_RUNS, seed: SEED, endOnFailure: true },
      );
    },
    30_000 + HOOK_RUNS * 1_500,
  );
});
