import { dirname, join } from 'node:path';

// Where a repository's private staging areas live: `index/` beside the project's own database (in git,
// `<git common dir>/ic/index`). On its own, so the shell hooks' fast path can ask without loading the rest.
export function privateIndexDir(projectDbPath: string): string {
  return join(dirname(projectDbPath), 'index');
}
