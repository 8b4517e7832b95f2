import { Command } from 'commander';
import { AGENT_TARGETS } from '../../hooks/install/agents';
import { existsSync, readdirSync, readSync, rmdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { ALL_TARGETS, detectTargets, planInstall, planUninstall, type Target } from '../../hooks/install/plan';
import type { Change } from '../../hooks/install/change';
import { list } from '../../coord/list';
import { isServerDb } from '../../store/discover';
import { planServerPurge, type ServerPurge } from './server-purge';
import { resolveProject, resolveWorkspace, type Workspace } from '../../coord/context';
import { escapeForDisplay } from '../../core/names';
import { IcError } from '../../core/errors';
import { DEFAULT_GATE_PATTERN } from '../../hooks/commit-gate';
import { openContext, commonCommand, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';
import { digestDir, runningDir } from '../../store/custody-digest';

// One flag per target (--claude, --git, …), and the rest.
interface InstallOptions extends CommonOptions, Partial<Record<Target, boolean>> {
  dryRun?: boolean;
  shared?: boolean;
  trust?: boolean;
  gitIndex?: boolean;
  shell?: boolean;
  commitGate?: string | boolean;
  purge?: boolean;
  force?: boolean;
}

function withTargetOptions(command: Command): Command {
  return command
    .option('--claude', 'Claude Code: .claude/settings.local.json (edits, refused edits, session start/end, subagents)')
    .option('--codex', 'Codex: .codex/hooks.json (PreToolUse on apply_patch, shell tools and MCP tools, SessionEnd)')
    .option('--git', 'git guard in `git rev-parse --git-path hooks`: pre-commit, and reference-transaction for commits that skip it (--no-verify); chains existing hooks')
    .option('--gemini', 'Gemini CLI: .gemini/settings.json (BeforeTool/AfterTool on write_file, replace, run_shell_command; SessionEnd)')
    .option('--copilot', 'GitHub Copilot CLI: .github/hooks/ic.json (preToolUse, postToolUse, sessionEnd)')
    .option('--opencode', 'OpenCode: the plugin .opencode/plugin/ic.js (tool.execute.before/after, calling `ic coord hook opencode-…`)')
    .option('--pi', 'pi: the extension .pi/extensions/ic.ts (tool_call, tool_result, session_shutdown, calling `ic coord hook pi-…`)')
    .option('--cline', "Cline's CLI: hook files in .clinerules/hooks/ (PreToolUse, PostToolUse, TaskComplete, SessionShutdown)")
    .option('--dry-run', 'print what would change, write nothing');
}

// `orAll`: uninstall with no flag takes every target (it only takes out what is ours).
function chosenTargets(options: InstallOptions, orAll = false): Target[] {
  const all = [...ALL_TARGETS, ...AGENT_TARGETS];
  const chosen = all.filter((target) => options[target]);
  return chosen.length === 0 && orAll ? all : chosen;
}

export function installCommand(emit: (reply: Reply) => void): Command {
  return withTargetOptions(commonCommand('install', 'install the hooks (no flag: for the clients found here, and the git guard); running it again changes nothing'))
    .option('--shared', 'Claude hooks in the committed .claude/settings.json, calling `ic` from PATH (no machine-specific path)')
    .option('--trust', "also record the folder trust of Gemini CLI (~/.gemini/trustedFolders.json) and Copilot CLI (~/.copilot/config.json), which skip an untrusted folder's hooks")
    .option('--no-trust', "record no trust at all (by default install records Codex's trust for exactly the hooks it writes, in $CODEX_HOME/config.toml)")
    .option('--no-shell', "do not check agents' shell commands before they run (Claude's Bash, Codex's shell tools); edit tools stay checked")
    .option('--git-index', 'a private git staging area per agent session (GIT_INDEX_FILE), refreshed onto HEAD before it is used; adds a post-commit hook')
    .option('--commit-gate [regex]', `commit-msg hook: the message must name a work item the committer claims (default ${DEFAULT_GATE_PATTERN})`)
    .action((options: InstallOptions) => {
      refuseOutsideProject(options);
      const commitGate = options.commitGate === undefined || options.commitGate === false ? undefined : options.commitGate === true ? DEFAULT_GATE_PATTERN : options.commitGate;
      const chosen = chosenTargets(options);
      const detected = chosen.length === 0 ? detectTargets(process.cwd(), process.env) : undefined;
      const targets = detected ? detected.targets : chosen;
      const plan = planInstall({
        cwd: process.cwd(),
        targets,
        shared: Boolean(options.shared),
        ...(options.trust !== undefined ? { trust: options.trust } : {}),
        gitIndex: Boolean(options.gitIndex),
        shell: options.shell !== false,
        ...(commitGate !== undefined ? { commitGate } : {}),
      });
      const reply = applyPlan(plan.changes, Boolean(options.dryRun), 'installed', plan.nextSteps);
      emit(detected ? withDetection(reply, targets, detected) : { ...reply, json: { ...reply.json, targets } });
    });
}

// Outside git (and below no \`ic init\` directory) every command exits 69, so hooks there would coordinate
// nothing: install refuses rather than write hooks that look working.
function refuseOutsideProject(options: InstallOptions): void {
  const project = resolveProject(process.cwd(), options.scope);
  if (!project.unmarked) return;
  throw new IcError('DB_UNAVAILABLE', `${project.projectRoot} is not in a git repository or below an \`ic init\` directory: hooks installed here would coordinate nothing`, {
    path: project.projectRoot,
    hint: "run `git init` (or `ic init` for a project without git) in the project's root directory, then `ic coord install` again",
  });
}

// What install found and configured, and what it skipped with why (the JSON and the first human lines).
function withDetection(reply: Reply, targets: Target[], detected: ReturnType<typeof detectTargets>): Reply {
  const found = targets.map((target) => `${target} (${detected.found[target]!.why})`);
  const skipped = detected.skipped.map((skip) => `${skip.target} (${skip.why}; add --${skip.target} to install it anyway)`);
  const header = [`configured: ${found.length > 0 ? found.join(', ') : 'nothing (no client found)'}`, ...(skipped.length > 0 ? [`skipped: ${skipped.join(', ')}`] : [])].join('\n');
  return { ...reply, json: { ...reply.json, targets, skipped: detected.skipped }, human: () => `${header}\n${String(reply.human())}` };
}

export function uninstallCommand(emit: (reply: Reply) => void): Command {
  return withTargetOptions(commonCommand('uninstall', 'remove the hooks install added and restore what they replaced (--purge: the database too)'))
    .option('--purge', 'also delete the database; for a full removal. With live locks it asks on a terminal, else needs --force')
    .option('--force', 'with --purge: delete the database even though it holds live locks (they are listed on stderr)')
    .action(async (options: InstallOptions) => {
      const dryRun = Boolean(options.dryRun);
      const changes = planUninstall({ cwd: process.cwd(), targets: chosenTargets(options, true) });
      const workspace = options.purge ? resolveWorkspace(process.cwd(), { env: process.env, dbFlag: options.db, scopeFlag: options.scope }) : undefined;
      const server = workspace ? serverOf(workspace) : undefined;
      if (server) changes.push(...server.changes);
      else if (workspace) changes.push(...(await planPurge(options, dryRun, workspace)));
      const reply = applyPlan(changes, dryRun, 'uninstalled');
      emit(server ? withKeptOnServer(reply, server.kept) : reply);
    });
}

// A server's data is never dropped by one clone's purge (server-purge.ts): only what ic recorded in the clone.
function serverOf(workspace: Workspace): ServerPurge | undefined {
  return isServerDb(workspace.db) ? planServerPurge(workspace.db.path, workspace.projectRoot, workspace.git) : undefined;
}

function withKeptOnServer(reply: Reply, kept: ServerPurge['kept']): Reply {
  const what = `kept on the server ${kept.db}: ${kept.project === null ? 'its data' : `the project ${kept.project}'s locks, events and custody records`} (other clones use them; ic never drops a server's data)`;
  return { ...reply, json: { ...reply.json, kept_on_server: kept }, human: () => `${String(reply.human())}\n${what}` };
}

// The database and its -wal/-shm files, and its directory when nothing else is in it. Live locks are listed
// on stderr first: whoever holds them loses them.
async function planPurge(options: InstallOptions, dryRun: boolean, workspace: Workspace): Promise<Change[]> {
  const db = workspace.db.path;
  if (!existsSync(db)) return [];
  const ctx = await openContext(options, false, workspace);
  const live = await list(ctx, { active: true, allScopes: true });
  ctx.db.close();
  if (live.length > 0) {
    const shown = live.slice(0, 20).map((lock) => `  ${lock.type} ${escapeForDisplay(lock.pattern)} held by ${escapeForDisplay(lock.owner)}`);
    const more = live.length > shown.length ? [`  … and ${live.length - shown.length} more`] : [];
    const list = `${live.length} live lock${live.length === 1 ? '' : 's'}:\n${[...shown, ...more].join('\n')}`;
    if (!dryRun && !options.force && !confirmedOnTerminal(`ic: ${db} holds ${list}\ndelete it anyway? [y/N] `)) {
      throw new IcError('CONFLICT', `${db} holds ${live.length} live lock${live.length === 1 ? '' : 's'}: their holders would lose them; nothing was changed`, {
        path: db,
        live_locks: live.length,
        hint: 'Try: coord list --active --all-scopes to see them, then coord uninstall --purge --force',
      });
    }
    process.stderr.write(`ic: warning: ${dryRun ? 'would delete' : 'deleting'} ${db} with ${list}\n`);
  }
  return [
    {
      file: db,
      action: 'removed',
      apply: () => {
        for (const file of [db, `${db}-wal`, `${db}-shm`, `${db}-journal`]) rmSync(file, { force: true });
        for (const dir of [digestDir(db), runningDir(db)]) rmSync(dir, { recursive: true, force: true }); // the shell hooks' fast-path files (src/hooks/fast/)
        const dir = dirname(db);
        if (readdirSync(dir).length === 0) rmdirSync(dir);
      },
    },
  ];
}

// A person at a terminal answers y to go on; anywhere else (a script, a pipe) the answer is no.
function confirmedOnTerminal(question: string): boolean {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  process.stderr.write(question);
  const buffer = Buffer.alloc(256);
  try {
    return /^\s*y(es)?\s*$/i.test(buffer.subarray(0, readSync(0, buffer, 0, buffer.length, null)).toString('utf8'));
  } catch {
    return false;
  }
}

function applyPlan(changes: Change[], dryRun: boolean, verb: string, nextSteps: string[] = []): Reply {
  if (!dryRun) for (const change of changes) change.apply();
  const changed = changes.map((change) => ({ file: change.file, action: change.action }));
  const human = () => {
    if (changed.length === 0) return `nothing to change: already ${verb}`;
    const lines = changed.map((c) => `  ${c.action.padEnd(9)} ${c.file}`);
    return `${dryRun ? 'would change (dry run, nothing written)' : verb}:\n${lines.join('\n')}`;
  };
  const steps = nextSteps.length === 0 ? '' : `\nnext steps:\n${nextSteps.map((step) => `  - ${step}`).join('\n')}`;
  return success({ changed, dry_run: dryRun, ...(nextSteps.length > 0 ? { next_steps: nextSteps } : {}) }, () => `${human()}${steps}`);
}
