// The native driver is loaded from its compiled addon alone (src/store/postgres/driver.ts): the package's
// index.js, with its `bindings` lookup and `assert`, cost every PostgreSQL hook about 10 ms more.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLibpq } from '../../src/store/postgres/driver';
import { serverUrl } from './support';

const copies = mkdtempSync(join(tmpdir(), 'ic-libpq-copy-'));

// The driver's known defect (docs/postgres.md, "Driver"): a handle collected between finish() and the close of
// its poll handle aborts the process (uv__finish_close). The test's handles live as long as the process.
const handles: unknown[] = [];
function keep<T>(pq: T): T {
  handles.push(pq);
  return pq;
}
afterAll(() => rmSync(copies, { recursive: true, force: true }));

// The installed package, copied without its neighbours (no `bindings` beside it) and with an index.js that
// refuses to be loaded.
function addonOnlyCopy(): string {
  const dir = join(copies, 'libpq');
  cpSync(process.env.IC_LIBPQ_DIR!, dir, { recursive: true });
  writeFileSync(join(dir, 'index.js'), "throw new Error('the package index.js was loaded');");
  return dir;
}

describe('the driver', () => {
  it("runs queries through the addon without the package's index.js or its dependencies", () => {
    const PQ = loadLibpq({ IC_LIBPQ_DIR: addonOnlyCopy() });
    const pq = keep(new PQ());
    pq.connectSync(serverUrl());
    try {
      pq.execParams('SELECT $1::int + 1 AS n', ['41']);
      expect(pq.resultStatus()).toBe('PGRES_TUPLES_OK');
      expect(pq.fname(0)).toBe('n');
      expect(pq.getvalue(0, 0)).toBe('42');
      pq.clear();
      expect(pq.transactionStatus()).toBe(0); // idle
    } finally {
      pq.finish();
    }
  });

  it('throws the server’s reason, and closes, when a connection is refused', () => {
    const PQ = loadLibpq({ IC_LIBPQ_DIR: addonOnlyCopy() });
    const pq = keep(new PQ());
    const url = new URL(serverUrl());
    url.searchParams.set('dbname', 'no_such_database_here');
    expect(() => pq.connectSync(url.toString())).toThrow(/no_such_database_here/);
  });
});
