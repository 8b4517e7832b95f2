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
  const result = await run(CODEX.command, [...CODEX.prefix, 'exec', '--json', '--skip-git-repo-check', prompt], { cwd: scratch.repo, env: baseEnv(scratch.home, { CODEX_HOME: scratch.home, MOCK_API_KEY: 'x', ...env }) });
  const started = result.stdout.split('\n').find((line) => line.includes('"thread.started"'));
  return { ...result, threadId: started ? (JSON.parse(started).thread_id as string) : undefined };
}
