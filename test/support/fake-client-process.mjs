// A stand-in for an agent client process (Claude Code, Codex): a long-lived process that runs its hooks and
// its shell commands as children through `sh -c`, as the real clients do. ic identifies the client as the
// first ancestor of a hook that is not a shell, so this process is "the agent" for every command it runs.
// Protocol: one JSON line per command on stdin ({command, input?, env?}); one JSON line back per command
// ({code, stdout, stderr}). It first prints {pid}. It stays alive until stdin closes or a signal ends it.
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

process.stdout.write(`${JSON.stringify({ pid: process.pid })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { command, input, env } = JSON.parse(line);
  const result = spawnSync('sh', ['-c', command], { input: input ?? '', env: { ...process.env, ...(env ?? {}) }, encoding: 'utf8' });
  process.stdout.write(`${JSON.stringify({ code: result.status, stdout: result.stdout, stderr: result.stderr })}\n`);
});
