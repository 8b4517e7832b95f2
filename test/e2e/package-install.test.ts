import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT, cleanEnv, makeTempRepo } from '../support/cli';

// What a person gets from the README's install until the package is published: `npm pack` in a clone, then
// `npm install -g --allow-scripts=better-sqlite3 ./ic-coord-ic-<version>.tgz`, and ic run from that prefix.
// The pack runs in a copy of this checkout's files as a fresh clone has them (no dist/, no man/), so `prepack`
// builds what the tarball ships, away from the dist/ the other suites are running. The install runs every
// install script, as the person's does; the one difference is where better-sqlite3's own script finds its
// prebuilt addon: in a local directory (prebuild-install's npm_config_better_sqlite3_local_prebuilds, filled
// with this checkout's build) instead of a download this offline machine cannot make, or a compile of minutes.
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string; private?: boolean; files: string[] };
let work: string;
let clone: string;
let tarball: string;
let prefix: string;
let builtBeforePack: boolean;
let install: { exitCode: number; output: string };

// npm's own variables from an outer `npm test` (npm_config_*, npm_lifecycle_*) would configure the inner npm.
// The machine's global npmrc (`<node prefix>/etc/npmrc`: a registry, a CA file) is the person's too, but
// `--prefix` moves npm's global config to `<prefix>/etc/npmrc`: it is named outright, so an install that
// reaches the registry sees the same settings the README's `npm install -g` would.
const globalNpmrc = join(dirname(dirname(process.execPath)), 'etc', 'npmrc');
const npmEnv = (extra: Record<string, string> = {}) => {
  const env = cleanEnv();
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  return {
    ...env,
    ...(existsSync(globalNpmrc) ? { npm_config_globalconfig: globalNpmrc } : {}),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...extra,
  };
};

// The files a clone of this checkout would have (tracked, plus new ones not ignored), with its node_modules.
async function copyAsClone(to: string): Promise<void> {
  const listed = await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT });
  for (const file of new Set(listed.stdout.split('\0').filter(Boolean))) {
    if (!existsSync(join(REPO_ROOT, file))) continue; // deleted in the work tree, not yet committed
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(REPO_ROOT, file), join(to, file));
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(to, 'node_modules'));
}

// better-sqlite3's addon from this checkout, packed under the name prebuild-install looks for.
async function localPrebuilds(dir: string): Promise<string> {
  const sqlite = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string };
  const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;
  const libc = process.platform === 'linux' && !glibc ? 'musl' : '';
  const stage = join(dir, 'stage');
  mkdirSync(join(stage, 'build', 'Release'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(stage, 'build', 'Release', 'better_sqlite3.node'));
  const prebuilds = join(dir, 'prebuilds');
  mkdirSync(prebuilds);
  const name = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
  await execa('tar', ['czf', join(prebuilds, name), '-C', stage, 'build']);
  return prebuilds;
}

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pack-')));
  clone = join(work, 'clone');
  prefix = join(work, 'prefix');
  await copyAsClone(clone);
  builtBeforePack = existsSync(join(clone, 'dist')) || existsSync(join(clone, 'man'));
  const packed = await execa('npm', ['pack', '--json', '--pack-destination', work], { cwd: clone, env: npmEnv(), extendEnv: false });
  tarball = join(work, (JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string }[])[0]!.filename);
  const prebuilds = await localPrebuilds(work);
  const installed = await execa('npm', ['install', '-g', '--prefix', prefix, '--allow-scripts=better-sqlite3', '--prefer-offline', tarball], {
    env: npmEnv({ npm_config_better_sqlite3_local_prebuilds: prebuilds }),
    extendEnv: false,
    all: true,
    reject: false,
  });
  install = { exitCode: installed.exitCode ?? -1, output: String(installed.all ?? '') };
}, 360_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the published package', () => {
  it('is publishable under a scoped name, with a LICENSE and a files whitelist', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.name).toMatch(/^@[a-z0-9-]+\/[a-z0-9-]+$/);
    expect(existsSync(join(REPO_ROOT, 'LICENSE'))).toBe(true);
    expect(pkg.files).toContain('LICENSE');
  });

  it('is built by npm pack from a clone that has no build: the bins, the bundles, the man page and the hook template, and no sources or tests', async () => {
    expect(builtBeforePack).toBe(false);
    const listing = await execa('tar', ['tzf', tarball]);
    const files = listing.stdout.split('\n');
    for (const wanted of ['package/bin/ic', 'package/bin/coord', 'package/dist/ic.cjs', 'package/dist/hook.cjs', 'package/man/ic.1', 'package/LICENSE', 'package/scripts/git-pre-commit.sh'])
      expect(files).toContain(wanted);
    expect(files.filter((file) => /^package\/(src|test)\//.test(file) || file.endsWith('.cache'))).toEqual([]);
  });

  it('has no script of its own that an install would run (npm lists prepare too, for a tarball)', async () => {
    const manifest = await execa('tar', ['xzf', tarball, '-O', 'package/package.json']);
    const scripts = Object.keys((JSON.parse(manifest.stdout) as { scripts?: Record<string, string> }).scripts ?? {});
    expect(scripts.filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
  });

  it("installs as the README says with no install-scripts warning, better-sqlite3's own script having run", () => {
    expect(install.exitCode, install.output).toBe(0);
    expect(install.output).toMatch(/added \d+ packages/);
    expect(install.output.split('\n').filter((line) => /install-scripts|@ic-coord\/ic/.test(line))).toEqual([]);
    // Put there by better-sqlite3's install script (from the local prebuild), not by this test.
    expect(existsSync(join(prefix, 'lib', 'node_modules', ...pkg.name.split('/'), 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'))).toBe(true);
  });

  it('works from the prefix: ic --version, a reservation and the list in a fresh repository, a hook call, and man ic', async () => {
    const version = await execa(join(prefix, 'bin', 'ic'), ['--version'], { env: npmEnv() });
    expect(version.stdout.trim()).toBe(pkg.version);
    const repo = makeTempRepo();
    try {
      const reserve = await execa(join(prefix, 'bin', 'coord'), ['reserve', 'src/**'], { cwd: repo.dir, env: npmEnv({ IC_OWNER: 'alice' }), reject: false });
      expect(reserve.exitCode, reserve.stderr).toBe(0);
      expect(JSON.parse(reserve.stdout).locks[0].pattern).toBe('src/**');
      const edit = (file: string) => JSON.stringify({ session_id: 's1', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(repo.dir, file) } });
      const refused = await execa(join(prefix, 'bin', 'coord'), ['hook', 'claude-pre-edit'], { cwd: repo.dir, env: npmEnv(), input: edit('src/a.ts'), reject: false });
      expect(refused.exitCode, refused.stderr).toBe(0);
      expect(JSON.parse(refused.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
      expect(JSON.parse(refused.stdout).hookSpecificOutput.permissionDecisionReason).toContain('alice');
      const allowed = await execa(join(prefix, 'bin', 'coord'), ['hook', 'claude-pre-edit'], { cwd: repo.dir, env: npmEnv(), input: edit('docs/b.md'), reject: false });
      expect(allowed.exitCode, allowed.stderr).toBe(0);
      const list = await execa(join(prefix, 'bin', 'coord'), ['list', '--active'], { cwd: repo.dir, env: npmEnv(), reject: false });
      expect((JSON.parse(list.stdout).locks as { pattern: string; owner: string }[]).map((lock) => [lock.pattern, lock.owner])).toEqual([
        ['src/**', 'alice'],
        ['docs/b.md', 'claude-s1'],
      ]);
    } finally {
      repo.cleanup();
    }
    expect(readdirSync(join(prefix, 'share', 'man', 'man1'))).toContain('ic.1');
  });

  it('runs with npx from the tarball', async () => {
    const npx = await execa('npx', ['--yes', '--prefer-offline', '--ignore-scripts', '-p', tarball, 'ic', '--version'], {
      cwd: work,
      env: npmEnv(),
      extendEnv: false,
      reject: false,
      timeout: 200_000,
    });
    expect(npx.stdout.trim()).toBe(pkg.version);
  }, 240_000);
});

describe('a clone before `npm run build`', () => {
  it('says how to build, on stderr, and exits 70 (not a stack trace), for a command and for a hook', async () => {
    const bare = realpathSync(mkdtempSync(join(tmpdir(), 'ic-unbuilt-')));
    try {
      mkdirSync(join(bare, 'bin'));
      for (const file of ['ic', 'coord', 'load.js']) copyFileSync(join(REPO_ROOT, 'bin', file), join(bare, 'bin', file));
      for (const [bin, args] of [
        ['ic', ['--version']],
        ['coord', ['hook', 'claude-pre-edit']],
      ] as const) {
        const result = await execa(process.execPath, [join(bare, 'bin', bin), ...args], { cwd: bare, env: cleanEnv(), input: '{}', reject: false });
        expect(result.exitCode).toBe(70);
        expect(result.stdout).toBe('');
        expect(result.stderr).toBe(`ic: ${join(bare, 'dist', bin === 'ic' ? 'ic.cjs' : 'hook.cjs')} is missing: run \`npm run build\` in ${bare} first`);
      }
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});
