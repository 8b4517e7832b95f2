import { onPostgres, POSTGRES_CLIENT_CLOCK } from './engine';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { cleanEnv, IC_BIN } from './cli';

export interface FakeClient {
  pid: number;
  /** Runs a shell command as the client's child (a hook command or the agent's shell tool). */
  run: (command: string, options?: { input?: string; env?: Record<string, string> }) => Promise<{ code: number | null; stdout: string; stderr: string; json: any }>;
  /** `ic coord hook NAME` with this payload, as the client runs its hooks. */
  hook: (name: string, payload: unknown, env?: Record<string, string>) => Promise<{ code: number | null; stdout: string; stderr: string; json: any }>;
  kill: (signal?: NodeJS.Signals) => Promise<void>;
}

// Starts test/support/fake-client-process.mjs in `cwd` with a clean environment plus `env`; `argv0` names
// the process as a client's program would (`copilot`), which is how ic tells which client runs a hook.
export async function startFakeClient(cwd: string, env: Record<string, string | undefined> = {}, options: { argv0?: string } = {}): Promise<FakeClient> {
  // On PostgreSQL, a hook's IC_NOW (IC_TEST_CLOCK=1) moves the clock the server would otherwise give (engine.ts).
  const clock = onPostgres ? { IC_TEST_PG_CLIENT_CLOCK: POSTGRES_CLIENT_CLOCK.IC_TEST_PG_CLIENT_CLOCK } : {};
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'fake-client-process.mjs')], {
    cwd,
    env: cleanEnv({ ...clock, ...env }) as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'inherit'],
    ...(options.argv0 ? { argv0: options.argv0 } : {}),
  });
  const waiting: ((line: string) => void)[] = [];
  let buffer = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      waiting.shift()?.(line);
    }
  });
  const next = () => new Promise<string>((resolve) => waiting.push(resolve));
  const { pid } = JSON.parse(await next()) as { pid: number };
  const run: FakeClient['run'] = async (command, options = {}) => {
    const answer = next();
    child.stdin!.write(`${JSON.stringify({ command, input: options.input ?? '', env: options.env ?? {} })}\n`);
    const result = JSON.parse(await answer) as { code: number | null; stdout: string; stderr: string };
    let json: any;
    try {
      json = JSON.parse(result.stdout);
    } catch {
      json = undefined;
    }
    return { ...result, json };
  };
  return {
    pid,
    run,
    hook: (name, payload, hookEnv) => run(`'${IC_BIN}' coord hook ${name}`, { input: typeof payload === 'string' ? payload : JSON.stringify(payload), env: hookEnv }),
    kill: (signal = 'SIGTERM') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
