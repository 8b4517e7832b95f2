import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, cleanEnv, makeTempRepo } from '../support/cli';

// What a person gets from `npm install -g`: the packed tarball, installed into a temp prefix, run from there.
// better-sqlite3's own install script (a prebuilt download, else a compile of minutes) is skipped and the
// addon this checkout built is copied in: what is tested is our package, not node-gyp.
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string; private?: boolean; files: string[] };
let work: string;
let tarball: string;
let prefix: string;

const npmEnv = () => cleanEnv({ npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pack-')));
  prefix = join(work, 'prefix');
  // dist/ is built by `npm test`; packing without scripts leaves it alone while other suites run it.
  await execa(process.execPath, [join(REPO_ROOT, 'scripts', 'man.mjs')], { cwd: REPO_ROOT });
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO_ROOT, env: npmEnv() });
  tarball = join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  await execa('npm', ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--prefer-offline', tarball], { env: npmEnv() });
  const addonDir = join(prefix, 'lib', 'node_modules', ...pkg.name.split('/'), 'node_modules', 'better-sqlite3', 'build', 'Release');
  mkdirSync(addonDir, { recursive: true });
  copyFileSync(join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(addonDir, 'better_sqlite3.node'));
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the published package', () => {
  it('is publishable under a scoped name, with a LICENSE and a files whitelist', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.name).toMatch(/^@[a-z0-9-]+\/[a-z0-9-]+$/);
    expect(existsSync(join(REPO_ROOT, 'LICENSE'))).toBe(true);
    expect(pkg.files).toContain('LICENSE');
  });

  it('ships the bins, the bundles, the man page and the hook template, and no sources or tests', async () => {
    const listing = await execa('tar', ['tzf', tarball]);
    const files = listing.stdout.split('\n');
    for (const wanted of ['package/bin/ic', 'package/bin/coord', 'package/dist/ic.cjs', 'package/dist/hook.cjs', 'package/man/ic.1', 'package/LICENSE', 'package/scripts/git-pre-commit.sh'])
      expect(files).toContain(wanted);
    expect(files.filter((file) => /^package\/(src|test)\//.test(file) || file.endsWith('.cache'))).toEqual([]);
  });

  it('installs globally into a prefix: ic --version, a reservation in a fresh repository, and man ic', async () => {
    const version = await execa(join(prefix, 'bin', 'ic'), ['--version'], { env: npmEnv() });
    expect(version.stdout.trim()).toBe(pkg.version);
    const repo = makeTempRepo();
    try {
      const reserve = await execa(join(prefix, 'bin', 'coord'), ['reserve', 'src/**', '--owner', 'alice'], { cwd: repo.dir, env: npmEnv(), reject: false });
      expect(reserve.exitCode).toBe(0);
      expect(JSON.parse(reserve.stdout).locks[0].pattern).toBe('src/**');
    } finally {
      repo.cleanup();
    }
    expect(readdirSync(join(prefix, 'share', 'man', 'man1'))).toContain('ic.1');
  });

  it('runs with npx from the tarball', async () => {
    const npx = await execa('npx', ['--yes', '--prefer-offline', '--ignore-scripts', '-p', tarball, 'ic', '--version'], { cwd: work, env: npmEnv(), reject: false, timeout: 200_000 });
    expect(npx.stdout.trim()).toBe(pkg.version);
  }, 240_000);
});
