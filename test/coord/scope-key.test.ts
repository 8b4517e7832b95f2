// The stored key of a scope directory (scopeKey, src/coord/workspace.ts): the first spelling written for its identity.
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryIdentity, scopeKey } from '../../src/coord/workspace';
import { openDb } from '../../src/store/open';
import type { Connection } from '../../src/store/connection';

let dir: string;
let db: Connection;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-scope-key-')));
  db = openDb({ path: join(dir, 'ic.db'), source: '--db' }, { write: true, busyTimeoutMs: 1_000, now: Date.now() }).db;
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});
const rows = () => db.prepare('SELECT identity, scope FROM scope_names ORDER BY scope').all();

describe('scopeKey', () => {
  it('a writer records its spelling once; a reader records nothing', async () => {
    const work = join(dir, 'work');
    mkdirSync(work);
    expect(await scopeKey(db, work, false)).toBe(work);
    expect(await rows()).toEqual([]);
    expect(await scopeKey(db, work, true)).toBe(work);
    expect(await scopeKey(db, work, true)).toBe(work);
    expect(await rows()).toEqual([{ identity: directoryIdentity(work), scope: work }]);
  });

  it('a spelling recorded for this identity and not reachable here (the host path, seen from a container) is the key', async () => {
    const work = join(dir, 'work');
    mkdirSync(work);
    await db.prepare('INSERT INTO scope_names (identity, scope) VALUES (?, ?)').run(directoryIdentity(work), '/host/only/proj');
    expect(await scopeKey(db, work, false)).toBe('/host/only/proj');
    expect(await scopeKey(db, work, true)).toBe('/host/only/proj');
  });

  it('a recorded spelling that reaches another directory here is stale (inode reused): a writer replaces it', async () => {
    const work = join(dir, 'work');
    const other = join(dir, 'other');
    mkdirSync(work);
    mkdirSync(other);
    await db.prepare('INSERT INTO scope_names (identity, scope) VALUES (?, ?)').run(directoryIdentity(work), other);
    expect(await scopeKey(db, work, false)).toBe(work);
    expect(await scopeKey(db, work, true)).toBe(work);
    expect(await rows()).toEqual([{ identity: directoryIdentity(work), scope: work }]);
  });

  it('a directory that cannot be read keeps its own spelling', async () => {
    expect(await scopeKey(db, join(dir, 'missing'), true)).toBe(join(dir, 'missing'));
    expect(await rows()).toEqual([]);
  });
});
