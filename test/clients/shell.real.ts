import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { startOpenAiMock } from './mock-openai.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { runCodex, writeCodexConfig } from './codex';
import { events, ic, makeScratch, type Scratch } from './support';

// Shell custody, the deny side (#19), through the real agents: another session holds twelve files with
// uncommitted work, and a second agent runs the twelve shell writes at them — Claude's Bash in
// acceptEdits and in bypassPermissions, Codex's shell. Nothing may change, and every try is an event.
// Each client run batches all twelve calls into one model turn, to keep the suite's wall time low.

const HOLDER = 'claude-aaaaaaaa-0000-4000-8000-00000000000a';
const FILES = Array.from({ length: 12 }, (_, i) => `held/f${i + 1}.txt`);
const WRITES: ((file: string) => string)[] = [
  (f) => `echo clobbered > ${f}`,
  (f) => `sed -i 's/work/oops/' ${f}`,
  (f) => `cat > ${f} <<'EOF'\nclobbered\nEOF`,
  (f) => `echo clobbered | tee ${f}`,
  (f) => `python3 -c "open('${f}','w').write('clobbered')"`,
  (f) => `cp README.md ${f}`,
  (f) => `mv ${f} moved-away.txt`,
  (f) => `git checkout -- ${f}`,
  (f) => `git restore ${f}`,
  (f) => `perl -pi -e 's/work/oops/' ${f}`,
  (f) => `rm ${f}`,
  () => 'git stash',
];
const COMMANDS = WRITES.map((write, i) => write(FILES[i]!));
const holderWork = (file: string) => `holder's uncommitted work on ${file}\n`;

let s: Scratch;
beforeAll(async () => {
  s = makeScratch({ 'README.md': 'readme\n', ...Object.fromEntries(FILES.map((f) => [f, 'committed\n'])) });
  for (const file of FILES) writeFileSync(join(s.repo, file), holderWork(file));
  expect((await ic(s.repo, ['coord', 'reserve', ...FILES, '--owner', HOLDER, '--reason', 'uncommitted refactor'])).code).toBe(0);
});
afterAll(() => s.cleanup());

function expectAllUnchanged(): void {
  expect(FILES.filter((file) => !existsSync(join(s.repo, file)) || readFileSync(join(s.repo, file), 'utf8') !== holderWork(file))).toEqual([]);
  expect(existsSync(join(s.repo, 'moved-away.txt'))).toBe(false);
  expect(execFileSync('git', ['-C', s.repo, 'stash', 'list'], { encoding: 'utf8' })).toBe('');
}

// The shell commands refused for `owner`, one per try, as `coord events` shows them.
async function refusedCommands(owner: string): Promise<Set<string>> {
  const log = (await events(s.repo)) as unknown as { type: string; owner: string; detail: { via?: string; command?: string; held_owner?: string } }[];
  return new Set(log.filter((e) => e.type === 'conflict' && e.owner === owner && e.detail.via === 'shell' && e.detail.held_owner === HOLDER).map((e) => e.detail.command!));
}

describe('the twelve shell writes of #19 against a held file with uncommitted work, real clients', () => {
  it('Claude Code Bash, acceptEdits and bypassPermissions: 0 of 24 change anything; each try is a conflict event', async () => {
    prepareClaudeHome(s);
    expect((await ic(s.repo, ['coord', 'install', '--claude'])).code).toBe(0);
    const bash = COMMANDS.map((command) => ({ name: 'Bash', input: { command, description: 'write' } }));
    const server = await startAnthropicMock({ ACCEPT: [bash, 'done'], BYPASS: [bash, 'done'] });
    try {
      for (const [marker, mode] of [
        ['ACCEPT', 'acceptEdits'],
        ['BYPASS', 'bypassPermissions'],
      ] as const) {
        const run = await runClaude(s, server.url, `write [[${marker}]]`, { args: ['--permission-mode', mode], env: { IS_SANDBOX: '1' } });
        expect(run.code).toBe(0);
        const results = server.requests.filter((r) => r.conversation === marker).at(-1)!.toolResults;
        expect(results).toHaveLength(12);
        expect(results.filter((r) => !(r.is_error && r.text.includes('ic: another agent is working on')))).toEqual([]);
        expectAllUnchanged();
        expect(await refusedCommands(`claude-${run.sessionId}`)).toEqual(new Set(COMMANDS));
      }
    } finally {
      await server.close();
    }
  });

  it('Codex shell (exec_command): 0 of 12 change anything; each try is a conflict event', async () => {
    const server = await startOpenAiMock({ CODEX: [COMMANDS.map((shell) => ({ shell })), 'done'] });
    try {
      writeCodexConfig(s, server.url);
      expect((await ic(s.repo, ['coord', 'install', '--codex', '--trust'], { CODEX_HOME: s.home })).code).toBe(0);
      const run = await runCodex(s, 'write [[CODEX]]');
      expect(run.code).toBe(0);
      const outputs = server.requests.filter((r) => r.conversation === 'CODEX').at(-1)!.outputs;
      expect(outputs).toHaveLength(12);
      expect(outputs.filter((o) => !o.output.includes('ic: another agent is working on'))).toEqual([]);
      expectAllUnchanged();
      expect(await refusedCommands(`codex-${run.threadId}`)).toEqual(new Set(COMMANDS));
    } finally {
      await server.close();
    }
  });

  it('an MCP server write tool (stdio, --mcp-config) driven by Claude Code is denied on a held file', async () => {
    const target = join(s.repo, FILES[0]!);
    const config = join(s.root, 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { fs: { type: 'stdio', command: process.execPath, args: [join(__dirname, 'mcp-write-server.mjs')] } } }));
    const free = join(s.repo, 'free.txt');
    const server = await startAnthropicMock({
      MCP: [[{ name: 'mcp__fs__write_file', input: { path: target, content: 'clobbered by mcp\n' } }], [{ name: 'mcp__fs__write_file', input: { path: free, content: 'mine\n' } }], 'done'],
    });
    try {
      const run = await runClaude(s, server.url, 'write [[MCP]]', { args: ['--permission-mode', 'bypassPermissions', '--mcp-config', config, '--strict-mcp-config'], env: { IS_SANDBOX: '1' } });
      expect(run.code).toBe(0);
      const results = server.requests.filter((r) => r.conversation === 'MCP').at(-1)!.toolResults;
      expect(results[0]).toMatchObject({ is_error: true });
      expect(results[0]!.text).toContain('ic: another agent is working on this file');
      expect(readFileSync(target, 'utf8')).toBe(holderWork(FILES[0]!));
      expect(readFileSync(free, 'utf8')).toBe('mine\n'); // the tool itself works: the deny was ic's
      const log = await events(s.repo);
      expect(log.some((e) => e.type === 'conflict' && e.owner === `claude-${run.sessionId}` && e.pattern === FILES[0])).toBe(true);
    } finally {
      await server.close();
    }
  });
});
