import { Command } from 'commander';
import { AGENT_TARGETS } from '../../hooks/install/agents';
import { ALL_TARGETS, planInstall, planUninstall, type Change, type Target } from '../../hooks/install';
import { DEFAULT_GATE_PATTERN } from '../../hooks/commit-gate';
import { withCommonOptions, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

interface InstallOptions extends CommonOptions {
  claude?: boolean;
  codex?: boolean;
  git?: boolean;
  gemini?: boolean;
  copilot?: boolean;
  opencode?: boolean;
  dryRun?: boolean;
  shared?: boolean;
  trust?: boolean;
  gitIndex?: boolean;
  shell?: boolean;
  commitGate?: string | boolean;
}

function withTargetOptions(command: Command): Command {
  return withCommonOptions(command)
    .option('--claude', 'Claude Code: .claude/settings.local.json (edits, refused edits, session start/end, subagents)')
    .option('--codex', 'Codex: .codex/hooks.json (PreToolUse on apply_patch, shell tools and MCP tools, SessionEnd)')
    .option('--git', 'git pre-commit guard in `git rev-parse --git-path hooks` (chains an existing hook)')
    .option('--gemini', 'Gemini CLI: .gemini/settings.json (BeforeTool/AfterTool on write_file, replace, run_shell_command; SessionEnd)')
    .option('--copilot', 'GitHub Copilot CLI: .github/hooks/ic.json (preToolUse, postToolUse, sessionEnd)')
    .option('--opencode', 'OpenCode: the plugin .opencode/plugin/ic.js (tool.execute.before/after, calling `ic coord hook opencode-…`)')
    .option('--dry-run', 'print what would change, write nothing');
}

// No flag means Claude, Codex and git (the agent clients of src/hooks/agents are installed by their flag).
function targetsOf(options: InstallOptions): Target[] {
  const chosen = [...ALL_TARGETS, ...AGENT_TARGETS].filter((target) => options[target]);
  return chosen.length > 0 ? chosen : [...ALL_TARGETS];
}

export function installCommand(emit: (reply: Reply) => void): Command {
  return withTargetOptions(new Command('install'))
    .description('install the hooks (no flag: all of them); running it again changes nothing')
    .option('--shared', 'Claude hooks in the committed .claude/settings.json, calling `ic` from PATH (no machine-specific path)')
    .option(
      '--trust',
      "record the client's trust for ic's hooks: Codex ($CODEX_HOME/config.toml), Gemini CLI (~/.gemini/trustedFolders.json), Copilot CLI (~/.copilot/config.json); they skip untrusted hooks",
    )
    .option('--no-shell', "do not check agents' shell commands before they run (Claude's Bash, Codex's shell tools); edit tools stay checked")
    .option('--git-index', 'a private git staging area per agent session (GIT_INDEX_FILE), refreshed onto HEAD before it is used; adds a post-commit hook')
    .option('--commit-gate [regex]', `commit-msg hook: the message must name a work item the committer claims (default ${DEFAULT_GATE_PATTERN})`)
    .action((options: InstallOptions) => {
      const commitGate = options.commitGate === undefined || options.commitGate === false ? undefined : options.commitGate === true ? DEFAULT_GATE_PATTERN : options.commitGate;
      const plan = planInstall({
        cwd: process.cwd(),
        targets: targetsOf(options),
        shared: Boolean(options.shared),
        trust: Boolean(options.trust),
        gitIndex: Boolean(options.gitIndex),
        shell: options.shell !== false,
        ...(commitGate !== undefined ? { commitGate } : {}),
      });
      emit(applyPlan(plan.changes, Boolean(options.dryRun), 'installed', plan.nextSteps));
    });
}

export function uninstallCommand(emit: (reply: Reply) => void): Command {
  return withTargetOptions(new Command('uninstall'))
    .description('remove the hooks install added and restore what they replaced')
    .action((options: InstallOptions) => emit(applyPlan(planUninstall({ cwd: process.cwd(), targets: targetsOf(options) }), Boolean(options.dryRun), 'uninstalled')));
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
