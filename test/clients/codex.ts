import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CODEX, run, type Run, type Scratch } from './support';

// Codex's user config in the scratch CODEX_HOME: the mock as model provider (Responses API, no retries),
// the repository trusted as a project, and whatever else the scenario adds (trust entries).
export function writeCodexConfig(scratch: Scratch, mockUrl: string, extra = ''): string {
  const path = join(scratch.home, 'config.toml');
  const text = [
    'model = "gpt-5.5"',
    'model_provider = "mock"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    '',
    '[model_providers.mock]',
    'name = "mock"',
    `base_url = ${JSON.stringify(mockUrl)}`,
    'wire_api = "responses"',
    'env_key = "MOCK_API_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    `[projects.${JSON.stringify(scratch.repo)}]`,
    'trust_level = "trusted"',
    '',
    extra,
  ].join('\n');
  writeFileSync(path, text);
  return path;
}

export interface CodexRun extends Run {
  threadId: string | undefined;
}

// One `codex exec --json` session in the repository against the mock.
export async function runCodex(scratch: Scratch, prompt: string, env: Record<string, string> = {}): Promise<CodexRun> {
  const result = await run(CODEX.command, [...CODEX.prefix, 'exec', '--json', '--skip-git-repo-check', prompt], {
    cwd: scratch.repo,
    env: baseEnv(scratch.home, { CODEX_HOME: scratch.home, MOCK_API_KEY: 'x', ...env }),
  });
  const started = result.stdout.split('\n').find((line) => line.includes('"thread.started"'));
  return { ...result, threadId: started ? (JSON.parse(started).thread_id as string) : undefined };
}

// The session's next turn: `codex exec resume <thread id> <prompt>`.
export async function resumeCodex(scratch: Scratch, threadId: string, prompt: string): Promise<Run> {
  return run(CODEX.command, [...CODEX.prefix, 'exec', '--json', '--skip-git-repo-check', 'resume', threadId, prompt], {
    cwd: scratch.repo,
    env: baseEnv(scratch.home, { CODEX_HOME: scratch.home, MOCK_API_KEY: 'x' }),
  });
}

// Codex's own view of the project's hooks (`codex app-server`, JSON-RPC hooks/list): key, currentHash,
// trustStatus for each. The independent oracle for ic's trust hash.
export async function codexHookList(scratch: Scratch): Promise<{ key: string; currentHash: string; trustStatus: string; command: string }[]> {
  const { spawn } = await import('node:child_process');
  const child = spawn(CODEX.command, [...CODEX.prefix, 'app-server'], {
    cwd: scratch.repo,
    env: baseEnv(scratch.home, { CODEX_HOME: scratch.home, MOCK_API_KEY: 'x' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  let buffer = '';
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('codex app-server did not answer hooks/list')), 30_000);
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        for (const line of buffer.split('\n').slice(0, -1)) {
          const message = JSON.parse(line);
          if (message.id === 1) {
            send({ jsonrpc: '2.0', method: 'initialized' });
            send({ jsonrpc: '2.0', id: 2, method: 'hooks/list', params: { cwds: [scratch.repo] } });
          }
          if (message.id === 2) {
            clearTimeout(timer);
            resolve(message.result.data[0].hooks);
          }
        }
        buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
      });
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'ic-test', version: '1' } } });
    });
  } finally {
    child.kill();
  }
}
