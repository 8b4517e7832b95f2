import { dirname, join } from 'node:path';
import type { HealthCheck } from '../../store/health';
import { copilotConfigFile, copilotTrusts, geminiTrustFile, geminiTrusts } from './agent-trust';
import { agentFiles, COPILOT_HOOK_NAMES, GEMINI_HOOK_NAMES } from './agents';
import { commandCheck, ourCommands } from './hook-commands';
import { CLAUDE_HOOK_NAMES } from '../names';
import { readIfExists } from './git-hook';
import { clineHookCommand, clineHookFiles } from './cline-hooks';
import { OPENCODE_PLUGIN_MARKER } from './opencode-plugin';
import { PI_EXTENSION_MARKER } from './pi-extension';

// `ic doctor` for Gemini CLI, Copilot CLI, OpenCode, pi and Cline's CLI: where ic's hooks are installed, do they call an ic
// that runs here, and (Gemini, Copilot) is the folder trusted, without which the client skips them silently?
// A folder trust is the user's to give (it also opens the folder's other settings to the client): `install`
// records it only with --trust, and the client asks for it at its first start in the folder.
export function agentHookChecks(projectRoot: string, env: NodeJS.ProcessEnv): HealthCheck[] {
  const files = agentFiles(projectRoot);
  const checks: HealthCheck[] = [];
  const gemini = ourCommands(readIfExists(files.gemini), GEMINI_HOOK_NAMES);
  if (gemini.length > 0) {
    checks.push(commandCheck('gemini_hooks', files.gemini, gemini, env));
    checks.push(geminiTrustCheck(projectRoot, env));
  }
  const copilot = ourCommands(readIfExists(files.copilot), COPILOT_HOOK_NAMES, copilotHandler);
  if (copilot.length > 0) {
    checks.push(commandCheck('copilot_hooks', files.copilot, copilot, env));
    checks.push(copilotTrustCheck(projectRoot, env));
    checks.push(...copilotRunsClaudeHooks(projectRoot));
  }
  const opencode = programOf(readIfExists(files.opencode), OPENCODE_PLUGIN_MARKER);
  if (opencode !== undefined) checks.push(commandCheck('opencode_plugin', files.opencode, [opencode], env));
  const pi = programOf(readIfExists(files.pi), PI_EXTENSION_MARKER);
  if (pi !== undefined) checks.push(commandCheck('pi_extension', files.pi, [pi], env));
  const cline = clineHookFiles(projectRoot).flatMap((file) => clineHookCommand(readIfExists(file)) ?? []);
  if (cline.length > 0) checks.push(commandCheck('cline_hooks', dirname(files.cline), cline, env));
  return checks;
}

// The ic a generated plugin or extension runs: its `const IC = "…";` line.
function programOf(text: string | undefined, marker: string): string | undefined {
  const literal = text?.includes(marker) ? /^const IC = ("(?:[^"\\]|\\.)*");$/m.exec(text)?.[1] : undefined;
  return literal === undefined ? undefined : (JSON.parse(literal) as string);
}

// Copilot's handlers sit directly under each event and name their command `bash`, not `command`.
function copilotHandler(handler: unknown): unknown[] {
  return [{ command: (handler as { bash?: unknown } | null)?.bash }];
}

// An untrusted folder the client has not been asked about yet is a notice (it asks at its first start
// there, and doctor stays healthy); a folder the user said not to trust is a warning.
function geminiTrustCheck(projectRoot: string, env: NodeJS.ProcessEnv): HealthCheck {
  const file = geminiTrustFile(env);
  if (env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return { name: 'gemini_trust', ok: true, detail: 'GEMINI_CLI_TRUST_WORKSPACE=true: Gemini CLI runs the project hooks' };
  const trusted = geminiTrusts(readIfExists(file), projectRoot);
  if (trusted === true) return { name: 'gemini_trust', ok: true, detail: `Gemini CLI trusts ${projectRoot} (${file}), so it runs ic's hooks` };
  if (trusted === undefined)
    return {
      name: 'gemini_trust',
      ok: false,
      severity: 'notice',
      detail: `${projectRoot} is not trusted in ${file} yet: Gemini CLI asks at its first start here, and runs ic's hooks only once you trust the folder (unless its folder trust is turned off)`,
      fix: 'trust the folder when Gemini CLI asks, or run `ic coord install --gemini --trust`',
    };
  return {
    name: 'gemini_trust',
    ok: false,
    severity: 'warning',
    detail: `${projectRoot} is marked not trusted in ${file}: Gemini CLI skips project hooks in an untrusted folder (unless its folder trust is turned off), so its edits go unchecked`,
    fix: 'run `ic coord install --gemini --trust`, or trust the folder in Gemini CLI (/permissions)',
  };
}

function copilotTrustCheck(projectRoot: string, env: NodeJS.ProcessEnv): HealthCheck {
  const file = copilotConfigFile(env);
  if (env.COPILOT_ALLOW_ALL === 'true') return { name: 'copilot_trust', ok: true, detail: 'COPILOT_ALLOW_ALL=true: Copilot CLI runs the repository hooks' };
  if (copilotTrusts(readIfExists(file), projectRoot)) return { name: 'copilot_trust', ok: true, detail: `Copilot CLI trusts ${projectRoot} (${file}), so it runs ic's hooks` };
  return {
    name: 'copilot_trust',
    ok: false,
    severity: 'notice',
    detail: `${projectRoot} is not among the trusted folders in ${file} yet: Copilot CLI asks at its first start here, and runs ic's hooks only once you trust the folder (or with --trust-folder)`,
    fix: 'trust the folder when Copilot CLI asks, or run `ic coord install --copilot --trust`',
  };
}

// Copilot CLI also runs the Claude Code hooks in these files (it reads .claude/settings.json and
// settings.local.json as repository config): which hooks each client runs, and why that stays one owner.
function copilotRunsClaudeHooks(projectRoot: string): HealthCheck[] {
  const claudeFiles = ['.claude/settings.local.json', '.claude/settings.json'].filter((file) => ourCommands(readIfExists(join(projectRoot, file)), CLAUDE_HOOK_NAMES).length > 0);
  if (claudeFiles.length === 0) return [];
  return [
    {
      name: 'copilot_claude_hooks',
      ok: true,
      detail: `Claude Code runs ic's hooks in ${claudeFiles.join(' and ')}; Copilot CLI runs .github/hooks/ic.json and those Claude hooks too. ic's Claude hooks recognise a Copilot session (its process) and leave its tool calls to its own hooks: one owner per session (copilot-<session>, claude-<session>)`,
    },
  ];
}
