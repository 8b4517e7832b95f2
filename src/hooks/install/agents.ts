import { existsSync, readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { IcError } from '../../core/errors';
import { GEMINI_EDIT_TOOLS, GEMINI_SHELL_TOOLS } from '../agents/gemini';
import { copilotConfigFile, geminiTrustFile, withCopilotTrust, withGeminiTrust } from './agent-trust';
import { hookCommand, type IcCommand } from './entries';
import { readIfExists } from './git-hook';
import { gitExcludeFile, withExcludes } from './excludes';
import type { HookEntry } from './json-hooks';
import { CLINE_HOOK_FILES, CLINE_HOOK_MARKER, clineHookFiles, renderClineHook } from './cline-hooks';
import { OPENCODE_PLUGIN_MARKER, renderOpencodePlugin } from './opencode-plugin';
import { PI_EXTENSION_MARKER, renderPiExtension } from './pi-extension';
import { planJsonMerge, planJsonRemove, writeText, type Change } from './change';

// Install targets for the adapted clients (src/hooks/agents): Gemini CLI, GitHub Copilot CLI, OpenCode, pi,
// Cline's CLI. Each writes its personal files (one file; Cline: one per hook event) into the work tree, listed in .git/info/exclude so `git add -A` leaves it
// alone; with --trust, Gemini and Copilot also record their folder trust (they skip untrusted project hooks).
export type AgentTarget = 'gemini' | 'copilot' | 'opencode' | 'pi' | 'cline';
export const AGENT_TARGETS: readonly AgentTarget[] = ['gemini', 'copilot', 'opencode', 'pi', 'cline'];

export const GEMINI_HOOK_NAMES = ['gemini-pre-tool', 'gemini-post-tool', 'gemini-session-end'] as const;
export const COPILOT_HOOK_NAMES = ['copilot-pre-tool', 'copilot-post-tool', 'copilot-session-end'] as const;

export function agentFiles(projectRoot: string): Record<AgentTarget, string> {
  return {
    gemini: join(projectRoot, '.gemini', 'settings.json'),
    copilot: join(projectRoot, '.github', 'hooks', 'ic.json'),
    opencode: join(projectRoot, '.opencode', 'plugin', 'ic.js'),
    pi: join(projectRoot, '.pi', 'extensions', 'ic.ts'),
    cline: join(projectRoot, '.clinerules', 'hooks', 'PreToolUse'),
  };
}

// Every file a target writes (Cline: one hook file per event; the others: their one file).
function targetFiles(projectRoot: string, target: AgentTarget): string[] {
  return target === 'cline' ? clineHookFiles(projectRoot) : [agentFiles(projectRoot)[target]];
}

// The files ic owns whole (all but Gemini's settings), with their wanted text and mode; the marker says a file is ic's.
const OWNED_MARKERS = { copilot: 'coord hook copilot-', opencode: OPENCODE_PLUGIN_MARKER, pi: PI_EXTENSION_MARKER, cline: CLINE_HOOK_MARKER } as const;

function ownedFiles(projectRoot: string, target: Exclude<AgentTarget, 'gemini'>, ic: IcCommand): { file: string; text: string; mode?: number }[] {
  if (target !== 'cline') return [{ file: agentFiles(projectRoot)[target], text: { copilot: renderCopilotHooks, opencode: renderOpencodePlugin, pi: renderPiExtension }[target](ic) }];
  const events = Object.keys(CLINE_HOOK_FILES) as (keyof typeof CLINE_HOOK_FILES)[];
  return events.map((event, index) => ({ file: clineHookFiles(projectRoot)[index]!, text: renderClineHook(ic, event), mode: 0o755 }));
}

// Gemini CLI reads hook timeouts in milliseconds; its matcher is a regular expression over tool names.
export function geminiEntries(ic: IcCommand): HookEntry[] {
  const matcher = [...GEMINI_EDIT_TOOLS, ...GEMINI_SHELL_TOOLS].join('|');
  return [
    { event: 'BeforeTool', matcher, name: 'gemini-pre-tool', command: hookCommand(ic, 'gemini-pre-tool'), timeout: 10_000 },
    { event: 'AfterTool', matcher, name: 'gemini-post-tool', command: hookCommand(ic, 'gemini-post-tool'), timeout: 10_000 },
    { event: 'SessionEnd', name: 'gemini-session-end', command: hookCommand(ic, 'gemini-session-end'), timeout: 5_000 },
  ];
}

// .github/hooks/ic.json, all ours: Copilot's camelCase events, a `bash` command each, timeouts in seconds.
export function renderCopilotHooks(ic: IcCommand): string {
  const handler = (name: string, timeoutSec: number) => [{ type: 'command', bash: hookCommand(ic, name), timeoutSec }];
  const hooks = { preToolUse: handler('copilot-pre-tool', 10), postToolUse: handler('copilot-post-tool', 10), sessionEnd: handler('copilot-session-end', 5) };
  return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
}

// The clients with no trust step: when ic's file takes effect.
const LOADED_STEPS: Partial<Record<AgentTarget, string>> = {
  opencode:
    'OpenCode: the plugin .opencode/plugin/ic.js loads at its next start (no trust step). OpenCode has no session-end event in `opencode run`: the plugin releases at process exit, else locks lapse by TTL.',
  pi: 'pi: the extension .pi/extensions/ic.ts loads at its next start in this directory (no trust step); session_shutdown releases.',
  cline:
    "Cline CLI: the hooks in .clinerules/hooks/ run from its next task (no trust step). A refused edit ends Cline's task (its hooks cannot skip one call); TaskComplete and SessionShutdown release.",
};

export interface AgentPlanOptions {
  projectRoot: string;
  targets: readonly string[];
  ic: IcCommand;
  trust: boolean;
  env: NodeJS.ProcessEnv;
}

// `excluded`: the files to list in the repository's exclude block (plan.ts writes that block once for all targets).
export function planAgentInstall(options: AgentPlanOptions): { changes: Change[]; nextSteps: string[]; excluded: string[] } {
  const { projectRoot, ic } = options;
  const files = agentFiles(projectRoot);
  const changes: Change[] = [];
  const nextSteps: string[] = [];
  const excluded: string[] = [];
  const chosen = AGENT_TARGETS.filter((target) => options.targets.includes(target));
  for (const target of chosen) {
    const file = files[target];
    const before = readIfExists(file);
    if (target === 'gemini') changes.push(...planJsonMerge(file, geminiEntries(ic)));
    else for (const owned of ownedFiles(projectRoot, target, ic)) changes.push(...planOwnedFile(owned.file, owned.text, OWNED_MARKERS[target], owned.mode));
    // A settings file that was there before is the user's: only files install creates are excluded. With
    // --shared (ic from PATH, no machine's path) the files are for committing: nothing is excluded.
    if (ic.kind === 'path' && (target !== 'gemini' || before === undefined || listedInExclude(projectRoot, file)))
      excluded.push(...targetFiles(projectRoot, target).map((owned) => excludeEntry(projectRoot, owned)));
  }
  for (const target of ['gemini', 'copilot'] as const) {
    const step = chosen.includes(target) ? trustStep(target, projectRoot, options, changes) : undefined;
    if (step !== undefined) nextSteps.push(step);
  }
  if (ic.kind === 'on-path' && chosen.length > 0)
    nextSteps.push(
      `Gemini/Copilot/OpenCode/pi/Cline (--shared): commit ${chosen.flatMap((t) => targetFiles(projectRoot, t).map((f) => relative(projectRoot, f))).join(', ')}; they call \`ic\` from PATH.`,
    );
  for (const target of chosen) if (LOADED_STEPS[target]) nextSteps.push(LOADED_STEPS[target]);
  return { changes, nextSteps, excluded };
}

export function planAgentUninstall(projectRoot: string, targets: readonly string[]): { changes: Change[]; unexcluded: string[] } {
  const files = agentFiles(projectRoot);
  const changes: Change[] = [];
  const removed: string[] = [];
  for (const target of AGENT_TARGETS.filter((t) => targets.includes(t))) {
    const file = files[target];
    if (target === 'gemini') changes.push(...planJsonRemove(file, GEMINI_HOOK_NAMES));
    else for (const owned of targetFiles(projectRoot, target)) changes.push(...planOwnedRemove(owned, OWNED_MARKERS[target], projectRoot));
    removed.push(...targetFiles(projectRoot, target).map((owned) => excludeEntry(projectRoot, owned)));
  }
  return { changes, unexcluded: removed };
}

// The folder-trust step left to the person, or none when the folder is trusted already (a re-run never
// asks for a step that is done). With --trust install records the trust itself.
function trustStep(target: 'gemini' | 'copilot', projectRoot: string, options: AgentPlanOptions, changes: Change[]): string | undefined {
  const file = target === 'gemini' ? geminiTrustFile(options.env) : copilotConfigFile(options.env);
  const name = target === 'gemini' ? 'Gemini CLI' : 'Copilot CLI';
  const before = readIfExists(file);
  const update = target === 'gemini' ? withGeminiTrust(before, projectRoot) : withCopilotTrust(before, projectRoot);
  const trustedByEnv = target === 'gemini' ? options.env.GEMINI_CLI_TRUST_WORKSPACE === 'true' : options.env.COPILOT_ALLOW_ALL === 'true';
  if (update.kind === 'trusted' || (trustedByEnv && !options.trust)) return undefined;
  if (!options.trust)
    return target === 'gemini'
      ? `Gemini CLI: it runs project hooks only in a trusted folder, and asks at its first start here: answer yes (or trust it with /permissions, or run \`ic coord install --gemini --trust\` to record it in ${file}).`
      : `Copilot CLI: it runs repository hooks only in a trusted folder, and asks at its first start here: answer yes (or start it with --trust-folder, or run \`ic coord install --copilot --trust\` to record it in ${file}).`;
  if (update.kind === 'unreadable') throw new IcError('INVALID_INPUT', `${file} is not a JSON object ic can add the trust to; fix it, then run the installer again`, { file });
  changes.push({ file, action: before === undefined ? 'created' : 'updated', text: update.text, apply: () => writeText(file, update.text) });
  return `${name}: ${projectRoot} is trusted in ${file} (a folder trust: the client also reads the folder's other project settings). \`ic coord uninstall\` leaves that trust in place.`;
}

// A file ic owns whole: written when missing or different; another file of that name is never overwritten.
function planOwnedFile(file: string, wanted: string, marker: string, mode?: number): Change[] {
  const current = readIfExists(file);
  if (current === wanted) return [];
  if (current !== undefined && !current.includes(marker)) throw new IcError('INVALID_INPUT', `${file} exists and is not ic's; move it away, then run the installer again`, { file });
  return [{ file, action: current === undefined ? 'created' : 'updated', text: wanted, apply: () => writeText(file, wanted, mode) }];
}

// Removes a file ic owns, then each directory up to the project root that it leaves empty.
function planOwnedRemove(file: string, marker: string, projectRoot: string): Change[] {
  const current = readIfExists(file);
  if (current === undefined || !current.includes(marker)) return [];
  return [{ file, action: 'removed', apply: () => removeWithEmptyParents(file, projectRoot) }];
}

function removeWithEmptyParents(file: string, projectRoot: string): void {
  unlinkSync(file);
  for (let dir = dirname(file); dir !== projectRoot && dir.startsWith(projectRoot) && existsSync(dir) && readdirSync(dir).length === 0; dir = dirname(dir)) rmdirSync(dir);
}

function excludeEntry(projectRoot: string, file: string): string {
  return relative(projectRoot, file).split('\\').join('/');
}

function listedInExclude(projectRoot: string, file: string): boolean {
  const path = gitExcludeFile(projectRoot);
  const text = path === undefined ? undefined : readIfExists(path);
  return text !== undefined && withExcludes(text, [], [excludeEntry(projectRoot, file)]) !== text;
}
