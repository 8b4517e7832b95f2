#!/usr/bin/env node
// Installs the pinned real agent clients (test/clients/versions.json: Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode, pi, Cline CLI) for `npm run test:clients`,
// into a cache outside the repository ($IC_CLIENTS_DIR, else ~/.cache/ic-real-clients): up to about 400 MB
// each, so they are not devDependencies and `npm ci` stays light. A version already there is reused.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const versions = JSON.parse(readFileSync(join(root, 'test', 'clients', 'versions.json'), 'utf8'));
const cache = process.env.IC_CLIENTS_DIR || join(homedir(), '.cache', 'ic-real-clients');

// One installer at a time in the shared cache: a run beside this one (another clone or worktree) waits for it
// instead of npm-installing into the same directories at once. The lock is a directory naming its holder; a
// holder that is gone (killed) leaves a lock the next run takes over.
const lock = join(cache, '.install-lock');
mkdirSync(cache, { recursive: true });
for (let told = false; ;) {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    break;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const holder = Number(existsSync(join(lock, 'pid')) ? readFileSync(join(lock, 'pid'), 'utf8') : 0);
  if (holder > 0 && !alive(holder)) {
    rmSync(lock, { recursive: true, force: true });
    continue;
  }
  if (!told) console.log(`waiting for the installer running beside this one (${holder > 0 ? `pid ${holder}` : 'starting'}, ${lock})`);
  told = true;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
}
process.on('exit', () => rmSync(lock, { recursive: true, force: true }));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

for (const { package: name, version } of Object.values(versions)) {
  const prefix = join(cache, `${name.split('/').pop()}@${version}`);
  const manifest = join(prefix, 'node_modules', ...name.split('/'), 'package.json');
  if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version) {
    console.log(`${name}@${version}: cached in ${prefix}`);
    continue;
  }
  console.log(`${name}@${version}: installing into ${prefix} (about 400 MB)`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `${name}@${version}`], { stdio: ['ignore', 'inherit', 'inherit'] });
}

// OpenCode npm-installs its plugin SDK into every config directory it loads (~/.config/opencode, a
// project's .opencode/) at start-up unless it is there, which takes a minute or more through a registry
// proxy: this makes one such directory, as OpenCode itself leaves it, for the tests to copy
// (test/clients/agents.ts, prepareOpencode).
if (versions.opencode) {
  const { version } = versions.opencode;
  const dir = join(cache, `opencode-plugin@${version}`);
  if (existsSync(join(dir, 'node_modules', '@opencode-ai', 'plugin', 'package.json'))) console.log(`@opencode-ai/plugin@${version}: cached in ${dir}`);
  else {
    console.log(`@opencode-ai/plugin@${version}: installing into ${dir}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ dependencies: { '@opencode-ai/plugin': version } }, null, 2)}\n`);
    writeFileSync(join(dir, '.gitignore'), 'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
  }
}
