import { isPostgresUrl } from '../../store/postgres/url';
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { ShellWrites, ReadOptions } from '../../core/shell/index';
import { mayWriteVisibly } from '../../core/shell/programs';
import { hookClient, thisHost } from '../../coord/client-process';
import { clockFromEnv } from '../../coord/workspace';
import { LIVENESS_WRITE_MS, SHELL_GRACE_MS } from '../../coord/liveness-times';
import type { SnapshotRow } from '../../store/custody';
import { findGitInfo, projectDb, recordedServer, type GitInfo } from '../../store/discover';
import { coveredFiles, inState, isContent, lstatOrNull, pathsBelow, repoAt, statMatchesIndex, type Covered, type HeldPattern, type Repo } from '../../store/git/files';
import { NODE_DISK } from '../custody/node-disk';

import { CODEX_SHELL_TOOLS } from '../edit-events';
import { sameLineage } from '../../core/owner';
import { shellTimeoutOf } from '../shell-timeout';
import { objectField, stringField, type Payload } from '../payload';
import { runsGit } from '../runs-git';
import { realClientOf } from '../real-client';
import { privateIndexDir } from '../../coord/private-index-dir';
import { readDigest, type Digest, type DigestScope } from './digest';
import { readMarker, removeMarker, writeMarker } from '../../store/markers';
import { dropIndexBefore, indexChanges, keepIndexBefore } from '../custody/index-before';
import { clientBackgrounded, hasLinkedWorktrees, lateWorkPending, mayLeaveJob, mayLeaveWorkTree } from './reach';

// The shell hooks' fast path (issue #19: a command that writes nothing held must cost about a process
// start). A shell command's before and after hooks answer here, without loading SQLite, when the digest
// beside the database (./digest.ts) shows that the full hook would only read: the session was active
// moments ago and its locks outlast the command; the command names no file it writes; every file another
// owner holds is in a state custody already has (before), or is unchanged since the before hook (after);
// the writer's own held files need no new record. Anything else returns undefined and the full hook runs,
// which refreshes the digest. What the full hook would have stored in custody_commands and
// custody_snapshots goes into a marker file (./markers.ts) that the full hooks read as well.

export const FAST_SHELL_HOOKS: readonly string[] = ['claude-pre-shell', 'codex-pre-shell', 'claude-post-tool', 'codex-post-tool'];

const SAFE_ID = /^[A-Za-z0-9._-]{1,100}$/;

interface ShellCall {
  before: boolean;
  /** The owner the payload names (the session's), before liveness: `claude-<id>`, `codex-<id>` or Codex's $IC_OWNER. */
  base: string;
  /** Claude's subagent id: the writer is then `<live owner>/<id>`. */
  subagent?: string;
  command: string;
  callId: string;
  /** Where the command runs: custody's work tree. */
  cwd: string;
  /** Where the liveness step opens its project. */
  sessionDir: string;
  payload: Payload;
  env: NodeJS.ProcessEnv;
  name: string;
}

// The hook's whole stdout when decided here; undefined: the full hook decides.
export function fastShellHook(name: string, text: string, hookEnv: NodeJS.ProcessEnv, cwd: string): string | undefined {
  if (!FAST_SHELL_HOOKS.includes(name) || hookEnv.IC_FAST_PATH === '0' || hookEnv.IC_TIMING === '1') return undefined;
  try {
    const call = shellCallOf(name, text, hookEnv, cwd);
    if (call === undefined) return undefined;
    return call.before ? before(call) : after(call);
  } catch {
    return undefined; // whatever went wrong, the full hook knows how to say it
  }
}

function shellCallOf(name: string, text: string, hookEnv: NodeJS.ProcessEnv, cwd: string): ShellCall | undefined {
  const payload = JSON.parse(text) as Payload;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const env = hookEnv.IC_DB && !isAbsolute(hookEnv.IC_DB) && !isPostgresUrl(hookEnv.IC_DB) ? { ...hookEnv, IC_DB: resolve(cwd, hookEnv.IC_DB) } : hookEnv;
  const tool = stringField(payload, 'tool_name');
  const sessionId = stringField(payload, 'session_id');
  const input = objectField(payload, 'tool_input');
  const before = name.includes('-pre-');
  const callId = stringField(payload, 'tool_use_id') ?? stringField(payload, 'call_id') ?? '';
  const sessionDir = stringField(payload, 'cwd') || env.CLAUDE_PROJECT_DIR || cwd;
  const agent = name.slice(0, name.indexOf('-'));
  const real = realClientOf(agent, payload, env);
  if (real !== undefined && real !== agent) return undefined; // another client runs this hook file: the long way decides as whom (hook-route.ts)
  if (name.startsWith('claude-')) {
    if (tool !== 'Bash' || sessionId === undefined || !SAFE_ID.test(sessionId)) return undefined;
    const agentId = stringField(payload, 'agent_id');
    if (agentId !== undefined && !SAFE_ID.test(agentId)) return undefined;
    const command = input?.command;
    if (typeof command !== 'string' || command.trim() === '') return undefined;
    const projectDir = before ? env.CLAUDE_PROJECT_DIR || stringField(payload, 'cwd') || cwd : (stringField(payload, 'cwd') ?? env.CLAUDE_PROJECT_DIR ?? cwd);
    const where = before ? (stringField(payload, 'cwd') ?? projectDir) : projectDir;
    return { before, base: `claude-${sessionId}`, ...(agentId ? { subagent: agentId } : {}), command, callId, cwd: where, sessionDir, payload, env, name };
  }
  if (tool === undefined || !CODEX_SHELL_TOOLS.includes(tool)) return undefined;
  const base = env.IC_OWNER || (sessionId !== undefined && SAFE_ID.test(sessionId) ? `codex-${sessionId}` : undefined);
  const command = input?.command ?? input?.cmd;
  if (base === undefined || typeof command !== 'string' || command.trim() === '') return undefined;
  const projectDir = stringField(payload, 'cwd') ?? cwd;
  const workdir = stringField(input, 'workdir');
  return { before, base, command, callId, cwd: workdir ? resolve(projectDir, workdir) : projectDir, sessionDir, payload, env, name };
}

interface Place {
  repo: Repo;
  dbPath: string;
  scopeDir: string;
}

// The work tree and database of the command, when the session step would open the same database; 'none'
// when there is no database yet (nothing is held, and the full hook would create none for this command).
// As resolveProject and locateDb find them inside git (the scope is the work tree; the database $IC_DB, else
// the common dir's), without what those read for other callers (core.ignorecase, an 0.1 database).
function placeOf(call: ShellCall): Place | 'none' | undefined {
  // A server database has no files beside it for the fast path to read: the long way decides (docs/postgres.md).
  if (call.env.IC_DB && isPostgresUrl(call.env.IC_DB)) return undefined;
  const git = findGitInfo(call.cwd);
  if (!git) return undefined;
  if (!call.env.IC_DB && recordedServer(git.commonDir) !== undefined) return undefined; // a clone bound to a server (ic.db)
  const dbPath = databaseOf(call, git);
  if (call.sessionDir !== call.cwd) {
    const sessionGit = findGitInfo(call.sessionDir);
    if (!sessionGit || databaseOf(call, sessionGit) !== dbPath) return undefined;
  }
  // A git command in Claude's Bash may need the session's private index refreshed first (the long way does
  // it), but only in a repository where private staging areas exist at all: elsewhere `git status` is fast.
  if (call.name === 'claude-pre-shell' && runsGit(call.command) && existsSync(privateIndexDir(projectDb(git, git.root).path))) return undefined;
  if (!existsSync(dbPath)) return 'none';
  return { repo: repoAt(git.root, git.commonDir), dbPath, scopeDir: git.root };
}

function databaseOf(call: ShellCall, git: GitInfo): string {
  return call.env.IC_DB ? call.env.IC_DB : projectDb(git, git.root).path; // IC_DB made absolute in shellCallOf
}

interface Standing {
  digest: Digest;
  scope: DigestScope;
  /** The live owner of the session (`base`, or `base~<pid>`). */
  live: string;
  writer: string;
  now: number;
}

// What the session step would find without writing: the session seen within the liveness interval, no
// hand-off request its model has not been told, and (before a command) every lock of its lineage
// lasting past the command's timeout and grace.
function standingOf(call: ShellCall, place: Place): Standing | undefined {
  const digest = readDigest(place.dbPath, place.scopeDir);
  if (digest === undefined) return undefined;
  const scope = digest.scope;
  const now = clockFromEnv(call.env)();
  // The session row of this client process and base, as sessionOfProcess finds it; the boot id is not
  // compared: only a row seen within the liveness interval is used, and no such row is from another boot.
  const host = thisHost();
  const client = host === undefined ? undefined : hookClient({ host, boot: '' });
  let session: Digest['sessions'][number] | undefined;
  for (const row of digest.sessions) {
    const [owner, base, rowHost, , pid, start, lastSeen] = row;
    const mine = client ? rowHost === client.host && pid === client.pid && start === client.start && base === call.base : owner === call.base;
    if (mine && (session === undefined || lastSeen > session[6])) session = row;
  }
  if (session === undefined || now - session[6] >= LIVENESS_WRITE_MS || now < session[6]) return undefined;
  const live = session[0];
  const toldUntil = session[7];
  if (toldUntil !== null && scope.requests.some(([id, holder]) => id > toldUntil && sameLineage(holder, live))) return undefined;
  if (call.before) {
    const timeout = shellTimeoutOf(call.name, call.payload, call.env);
    if (timeout !== undefined) {
      const until = now + timeout + SHELL_GRACE_MS;
      if (digest.expiries.some(([owner, expiresAt]) => (owner === live || owner.startsWith(`${live}/`)) && expiresAt < until)) return undefined;
    }
  }
  return { digest, scope, live, writer: call.subagent ? `${live}/${call.subagent}` : live, now };
}

// The files other owners hold and the writer's own, from the digest's locks as custody's view reads them
// from the database, but counting every unreleased lock (a lapsed one may have been renewed since): more
// files to look at, never fewer. A file stays the writer's only while its own lock is live.
function heldFiles(place: Place, standing: Standing): { others: Covered; own: Covered; records: Map<string, DigestScope['records'][number]> } {
  const theirs: HeldPattern[] = [];
  const mine: HeldPattern[] = [];
  const liveMine: HeldPattern[] = [];
  for (const [lockId, holder, pattern, createdAt, expiresAt] of standing.scope.locks) {
    const held = { pattern, holder, lockId, createdAt };
    if (!sameLineage(holder, standing.writer)) theirs.push(held);
    else {
      mine.push(held);
      if (expiresAt > standing.now) liveMine.push(held);
    }
  }
  const records = new Map(standing.scope.records.map((record) => [record[0], record]));
  const recorded = pathsBelow([...records.keys()]);
  const others = coveredFiles(place.repo, theirs, recorded, matchGlob);
  const own = coveredFiles(place.repo, mine, recorded, matchGlob);
  for (const path of (liveMine.length === mine.length ? own : coveredFiles(place.repo, liveMine, recorded, matchGlob)).files.keys()) others.files.delete(path);
  return { others, own, records };
}

// The before hook: allowed in silence, as the full hook would, when nothing is to be reserved, refused or
// renewed, and every file other owners hold can be put back from what custody already has (a holder's
// record whose stat the file still has, or the index); the marker carries the snapshot.
function before(call: ShellCall): string | undefined {
  // The reader (a bundle of its own) only when the quick scan says the command may name a file it writes.
  if (mayWriteVisibly(call.command)) {
    const read = shellReader()(call.command, { cwd: call.cwd, ...(call.env.HOME ? { home: call.env.HOME } : {}), disk: NODE_DISK });
    if (read.targets.length > 0) return undefined;
  }
  const place = placeOf(call);
  if (place === 'none') return mayLeaveWorkTree(call.command) ? undefined : ''; // another work tree's database may hold files
  if (place === undefined || beyondThisWorkTree(call, place)) return undefined;
  const standing = standingOf(call, place);
  if (standing === undefined) return undefined;
  const { others, records } = heldFiles(place, standing);
  // One lstat per held file, present or not (listing their directories first cost more: they are spread out).
  const lstatOf = (path: string) => lstatOrNull(`${place.repo.root}/${path}`);
  const rows: SnapshotRow[] = [];
  for (const [path, held] of others.files) {
    const entry = others.tracked.get(path);
    const record = records.get(path);
    if (entry && record === undefined && statMatchesIndex(place.repo, entry)) continue;
    // A file that neither exists nor is in the index needs no record: one the command creates there is moved
    // aside all the same (the after hook's snapshot says it was absent). The digest leaves absent records out.
    const st = lstatOf(path);
    if (!entry && record === undefined && !isContent(st)) continue;
    // The full hook would (re)record it as seen: no record, one older than the lock, or a seen one since changed.
    if (record === undefined || record[6] < held.createdAt) return undefined;
    const [, , blob, mode, stat] = record;
    if (!inState(st, { blob, mode, stat })) return undefined;
    if (entry || blob !== null) rows.push({ path, holder: held.holder, blob, mode, stat });
  }
  if (others.files.size > 0) keepIndexBefore(place.repo, standing.scope.key, standing.writer, call.callId); // a command may change the index too
  writeMarker(place.dbPath, { scope: standing.scope.key, writer: standing.writer, call_id: call.callId, started_at: standing.now, rows });
  return '';
}

// The after hook: quiet, as the full hook would be, when the before hook was this fast path's, no file
// another owner holds differs from the before hook's snapshot, and none of the writer's own held files
// differs from its record.
function after(call: ShellCall): string | undefined {
  const place = placeOf(call);
  if (place === 'none') return mayLeaveWorkTree(call.command) ? undefined : '';
  if (place === undefined || beyondThisWorkTree(call, place) || clientBackgrounded(call.payload.tool_response).background) return undefined;
  const standing = standingOf(call, place);
  if (standing === undefined || standing.scope.editing.includes(standing.writer)) return undefined;
  const marker = readMarker(place.dbPath, standing.scope.key, standing.writer, call.callId);
  if (marker === undefined) return undefined;
  const { others, own, records } = heldFiles(place, standing);
  if (indexChanges(place.repo, standing.scope.key, standing.writer, call.callId, new Set(others.files.keys())).size > 0) return undefined; // the command changed a held file's index entry: the full hook puts it back
  const lstatOf = (path: string) => lstatOrNull(`${place.repo.root}/${path}`);
  const snapshot = new Map(marker.rows.map((row) => [row.path, row]));
  for (const path of others.files.keys()) {
    const entry = others.tracked.get(path);
    const row = snapshot.get(path);
    const unchanged = row ? inState(lstatOf(path), row) : entry ? statMatchesIndex(place.repo, entry) : !isContent(lstatOf(path));
    if (!unchanged) return undefined;
  }
  for (const path of own.files.keys()) {
    const record = records.get(path);
    const entry = own.tracked.get(path);
    if (record === undefined && entry && statMatchesIndex(place.repo, entry)) continue;
    const st = lstatOf(path);
    const recorded = record ? inState(st, { blob: record[2], mode: record[3], stat: record[4] }) : !isContent(st);
    if (!recorded) return undefined;
  }
  removeMarker(place.dbPath, standing.scope.key, standing.writer, call.callId);
  dropIndexBefore(place.repo, standing.scope.key, standing.writer, call.callId);
  return '';
}

// Custody the full hook does beyond one command in one work tree (issue #34): a watch on a job a command
// left running or a notice for a session is pending; the command may leave a job of its own, or reach
// another work tree (a cd, a path outside, a linked worktree of this repository).
function beyondThisWorkTree(call: ShellCall, place: Place): boolean {
  return lateWorkPending(place.dbPath) || mayLeaveJob(call.command) || mayLeaveWorkTree(call.command) || hasLinkedWorktrees(place.repo.commonDir);
}

// Glob patterns are matched by a bundle of their own (dist/glob.cjs), loaded only when a glob is held: most
// held locks name single files, and the matcher is a fifth of what this path would otherwise load.
let globMatcher: ((pattern: string, path: string) => boolean) | undefined;

function matchGlob(pattern: string, path: string): boolean {
  globMatcher ??= bundled<{ matchPath: typeof globMatcher }>('glob.cjs').matchPath;
  return globMatcher!(pattern, path);
}

// The shell reader is a bundle of its own too (dist/shell.cjs): more than half of this path's code, which
// most commands (a test run, a listing) never need.
let reader: ((command: string, options: ReadOptions) => ShellWrites) | undefined;

function shellReader(): NonNullable<typeof reader> {
  reader ??= bundled<{ shellWrites: NonNullable<typeof reader> }>('shell.cjs').shellWrites;
  return reader;
}

// A bundle beside this one in dist/, through the loader's code cache (bin/ic, reached as bin/load.js).
function bundled<T>(name: string): T {
  const loader = require(join(__dirname, '..', 'bin', 'load.js')) as { loadBundle(bundle: string): T };
  return loader.loadBundle(join(__dirname, name));
}
