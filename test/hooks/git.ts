import { execa } from 'execa';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanEnv, type RunResult } from '../support/cli';

// Runs git in the test repository the way an agent's shell would: clean env plus what the test adds.
export async function git(cwd: string, args: string[], env: Record<string, string | undefined> = {}): Promise<RunResult> {
  const result = await execa('git', args, { cwd, env: cleanEnv(env), extendEnv: false, reject: false, input: '' });
  return { exitCode: result.exitCode ?? -1, stdout: String(result.stdout ?? ''), stderr: String(result.stderr ?? ''), json: undefined };
}

export function writeFile(dir: string, rel: string, text = `${rel}\n`): void {
  const path = join(dir, rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

export function writeScript(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}
