import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLAUDE, run, type Run, type Scratch } from './support';

const API_KEY = 'sk-ant-dummy-key-for-a-local-mock-000000';

// Claude Code needs a home that says onboarding is done, the dummy key approved and the folders trusted.
export function prepareClaudeHome(scratch: Scratch): void {
  const trusted = { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true };
  const config = {
    hasCompletedOnboarding: true,
    customApiKeyResponses: { approved: [API_KEY, API_KEY.slice(-20)], rejected: [] },
    projects: { [scratch.repo]: trusted, [scratch.root]: trusted },
  };
  writeFileSync(join(scratch.home, '.claude.json'), JSON.stringify(config));
}

export interface ClaudeRun extends Run {
  sessionId: string | undefined;
}

// One non-interactive Claude Code session against the mock (`claude -p`), as a user would start it.
// `env` adds to the session's environment (IS_SANDBOX=1 lets bypassPermissions run as root).
export async function runClaude(scratch: Scratch, mockUrl: string, prompt: string, options: { cwd?: string; args?: string[]; env?: Record<string, string> } = {}): Promise<ClaudeRun> {
  const env = baseEnv(scratch.home, { ANTHROPIC_BASE_URL: mockUrl, ANTHROPIC_API_KEY: API_KEY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1', ...options.env });
  const args = [...CLAUDE.prefix, '-p', prompt, '--output-format', 'stream-json', '--verbose', ...(options.args ?? ['--permission-mode', 'acceptEdits'])];
  const result = await run(CLAUDE.command, args, { cwd: options.cwd ?? scratch.repo, env });
  const init = result.stdout.split('\n').find((line) => line.includes('"subtype":"init"'));
  return { ...result, sessionId: init ? (JSON.parse(init).session_id as string) : undefined };
}
