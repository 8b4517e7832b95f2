import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '..', '..');

// The README's install from a clone runs `npm pack`, which leaves ic-coord-ic-<version>.tgz at the root.
describe('the tarball `npm pack` leaves in the clone', () => {
  it('is ignored by git, whatever the version', () => {
    for (const name of ['ic-coord-ic-0.2.0.tgz', 'ic-coord-ic-0.4.0-rc.1.tgz']) {
      const result = spawnSync('git', ['-C', ROOT, 'check-ignore', '--no-index', '-q', join(ROOT, name)]);
      expect(result.status, name).toBe(0);
    }
  });
});
