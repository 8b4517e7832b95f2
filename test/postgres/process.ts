import { execa, type ResultPromise } from 'execa';
import { inject } from 'vitest';

// Runs test/postgres/worker.ts (bundled by global-setup.ts) as a process of its own.
export function worker(mode: 'grant' | 'hold' | 'migrate', args: Record<string, unknown>): ResultPromise<{ reject: false; timeout: number }> {
  return execa(process.execPath, [inject('pgWorker'), mode, JSON.stringify(args)], { reject: false, timeout: 120_000 });
}
