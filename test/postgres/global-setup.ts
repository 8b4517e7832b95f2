// Starts one throwaway PostgreSQL cluster for the suite and bundles the worker that tests run as separate
// processes; the returned teardown stops the cluster. The process-exit hook stops it too when vitest is
// interrupted (Ctrl-C, a crash in a worker), so no server outlives a run.
import { build } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain .mjs script without type declarations
import { startPostgres, stopPostgres } from '../../scripts/postgres-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    pgTcpUrl: string;
    pgWorker: string;
    pgDir: string;
  }
}

const root = new URL('../..', import.meta.url).pathname;

export default async function setup(project: TestProject): Promise<() => void> {
  // The worker process runs ic's store (and node-postgres) from a bundle of its own.
  // One bundle per run: a second run beside this one (another clone or worktree sharing node_modules) never
  // starts a worker from a file this one is writing.
  const outDir = join(root, 'node_modules', '.cache', 'ic-postgres-tests');
  mkdirSync(outDir, { recursive: true });
  const worker = join(outDir, `worker-${process.pid}.cjs`);
  await build({
    entryPoints: [join(root, 'test', 'postgres', 'worker.ts')],
    outfile: worker,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    loader: { '.sql': 'text' },
    external: ['pg-native', 'pg-cloudflare'], // optional modules pg requires only when asked for
    logLevel: 'warning',
  });

  const server = (await startPostgres()) as { dir: string; url: string; tcpUrl: string };
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    stopPostgres(server.dir);
    rmSync(worker, { force: true });
  };
  process.once('exit', stop);
  project.provide('pgUrl', server.url);
  project.provide('pgTcpUrl', server.tcpUrl);
  project.provide('pgWorker', worker);
  project.provide('pgDir', server.dir);
  return stop;
}
