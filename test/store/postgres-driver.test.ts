// How the PostgreSQL engine finds its native driver (src/store/postgres/driver.ts): IC_LIBPQ_DIR, else
// require('libpq'); ic does not depend on the package, and a missing or broken one is DB_UNAVAILABLE (69)
// with one line saying how to get it. The suite with the real driver and a server is test/postgres/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/exit-codes';
import { IcError } from '../../src/core/errors';
import { loadLibpq } from '../../src/store/postgres/driver';
import { openSession } from '../../src/store/postgres/choose-driver';

const root = new URL('../..', import.meta.url).pathname;
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ic-libpq-'));
  dirs.push(dir);
  return dir;
}

// A package directory on disk whose index.js is `body`.
function fakePackage(body: string): string {
  const dir = join(tempDir(), 'libpq');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'libpq', version: '0.0.0', main: 'index.js' }));
  writeFileSync(join(dir, 'index.js'), body);
  return dir;
}

function failure(run: () => unknown): IcError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(IcError);
    return error as IcError;
  }
  throw new Error('expected loadLibpq to throw');
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadLibpq', () => {
  it('loads the package IC_LIBPQ_DIR names', () => {
    const dir = fakePackage('module.exports = function FakeLibpq() {}; module.exports.from = __dirname;');
    const driver = loadLibpq({ IC_LIBPQ_DIR: dir }) as unknown as { from: string };
    expect(driver.from).toBe(dir);
  });

  it('answers DB_UNAVAILABLE (69), on one line saying how to get it, when IC_LIBPQ_DIR holds no package', () => {
    const dir = join(tempDir(), 'node_modules', 'libpq');
    const error = failure(() => loadLibpq({ IC_LIBPQ_DIR: dir }));
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(exitCodeOf(error.code)).toBe(69);
    expect(error.message).toContain(`no libpq package at IC_LIBPQ_DIR=${dir}`);
    expect(error.message).toContain('npm run test:postgres');
    expect(error.message).toContain('npm install libpq');
    expect(error.message).not.toContain('\n');
    expect(error.details).toMatchObject({ libpq_dir: dir });
  });

  it('says the package could not be loaded, with its reason, when it is there but broken (an addon that did not build)', () => {
    const dir = fakePackage("throw new Error('Could not locate the bindings file. Tried:\\n → build/Release/addon.node');");
    const error = failure(() => loadLibpq({ IC_LIBPQ_DIR: dir }));
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(error.message).toContain(`the libpq package from IC_LIBPQ_DIR=${dir} could not be loaded (Could not locate the bindings file. Tried:)`);
    expect(error.message).toContain("libpq's headers");
    expect(error.message).not.toContain('\n');
  });

  it('is not a dependency of ic: without IC_LIBPQ_DIR, this repository has no libpq to find', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies', 'allowScripts']) {
      expect(Object.keys((manifest[field] as Record<string, unknown> | undefined) ?? {}), field).not.toContain('libpq');
    }
    expect(readFileSync(join(root, 'package-lock.json'), 'utf8')).not.toContain('node_modules/libpq');
    const error = failure(() => loadLibpq({}));
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(error.message).toContain('the native libpq package is not installed');
    expect(error.message).toContain('npm run test:postgres');
  });
});

describe('a connection through libpq', () => {
  it("finds the package where the caller's environment says, not only where this process's does", () => {
    const dir = join(tempDir(), 'elsewhere', 'libpq');
    const env = { ...process.env, IC_PG_DRIVER: 'libpq', IC_LIBPQ_DIR: dir };
    const error = failure(() => openSession('postgresql://ic@db.example.com/ic?connect_timeout=2', env, 5_000));
    expect(error.code).toBe('DB_UNAVAILABLE');
    expect(error.message).toContain(`no libpq package at IC_LIBPQ_DIR=${dir}`);
  });
});
