import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hookClient, programOf, thisHost } from '../coord/client-process';
import type { Agent } from './identity';
import { stringField, type Payload } from './payload';
import { readRegularFile } from '../store/regular-file';

// Which client really runs a hook file. A client may run another client's hooks: Copilot CLI (1.0.102)
// reads .claude/settings.json and .claude/settings.local.json as extra repository config and sends those
// hooks Claude-shaped input (docs/agents.md). ic then must act as the session of the client that runs the
// hook, never as a second owner of the same session.

// The client a program is, by its executable and arguments (native binaries and node scripts alike). Each pattern needs its
// client's name in the word, looked for first: a regex's first test compiles it, which every hook would pay.
const PROGRAMS: readonly [Agent, RegExp][] = [
  ['copilot', /(^|\/)@github\/copilot(-[a-z0-9-]+)?\/|(^|\/)copilot(\.exe|\.js)?$/],
  ['claude', /(^|\/)@anthropic-ai\/claude-code\/|(^|\/)claude(\.exe|\.js)?$/],
  ['codex', /(^|\/)@openai\/codex(-[a-z0-9-]+)?\/|(^|\/)codex(\.exe|\.js)?$/],
  ['gemini', /(^|\/)@google\/gemini-cli\/|(^|\/)gemini(\.exe|\.js)?$/],
  ['opencode', /(^|\/)opencode-ai\/|(^|\/)opencode(\.exe|\.js)?$/],
];

export function clientOfProgram(words: readonly string[]): Agent | undefined {
  for (const word of words) for (const [agent, pattern] of PROGRAMS) if (word.includes(agent) && pattern.test(word)) return agent;
  return undefined;
}

// The client behind this hook: first the process that ran it (the nearest ancestor that is not a shell or
// wrapper); else what the client puts in its hooks' environment (Claude Code: CLAUDE_CODE_SESSION_ID, the
// payload's own session; Copilot CLI: COPILOT_CLI=1); else, for a Claude-shaped payload, its shape
// (Copilot's carries a `timestamp` and no `transcript_path`). Undefined: nothing says; the hook's own client.
export function realClientOf(hookAgent: string, payload: Payload, env: NodeJS.ProcessEnv): Agent | undefined {
  const client = hookClient(thisHostOnly());
  const byProcess = client ? clientOfProgram(programOf(client.pid)) : undefined;
  if (byProcess) return byProcess;
  const sessionId = stringField(payload, 'session_id') ?? stringField(payload, 'sessionId');
  if (env.CLAUDE_CODE_SESSION_ID && env.CLAUDE_CODE_SESSION_ID === sessionId) return 'claude';
  if (env.COPILOT_CLI === '1') return 'copilot';
  if (hookAgent === 'claude' && stringField(payload, 'timestamp') !== undefined && payload.transcript_path === undefined && stringField(payload, 'hook_event_name') !== 'Stop') return 'copilot';
  return undefined;
}

function thisHostOnly(): { host: string; boot: string } | undefined {
  const host = thisHost();
  return host === undefined ? undefined : { host, boot: '' }; // the pid is all this needs
}

// Are ic's own hooks for `agent` installed in the project holding `dir`? Then that client runs them itself,
// and another client's hook file it also runs has nothing to add. Files as `ic coord install` writes them.
export function ownHooksInstalled(agent: Agent, dir: string): boolean {
  const root = projectRootOf(dir);
  return root !== undefined && OWN_HOOK_FILES[agent].some(([file, marker]) => (marker === undefined ? existsSync(join(root, file)) : readRegularFile(join(root, file))?.includes(marker) === true));
}

// Each client's files with ic's hooks, and the hook name that marks ours (none: the file is ours whole).
const OWN_HOOK_FILES: Record<Agent, [string, string?][]> = {
  copilot: [['.github/hooks/ic.json', 'copilot-pre-tool']],
  claude: [
    ['.claude/settings.local.json', 'claude-pre-edit'],
    ['.claude/settings.json', 'claude-pre-edit'],
  ],
  codex: [['.codex/hooks.json', 'codex-pre-edit']],
  gemini: [['.gemini/settings.json', 'gemini-pre-tool']],
  opencode: [['.opencode/plugin/ic.js']],
  pi: [['.pi/extensions/ic.ts']],
  cline: [['.clinerules/hooks/PreToolUse', 'cline-pre-tool']],
};

// The work tree's top: the nearest directory holding `.git` (a directory, or a linked worktree's file).
function projectRootOf(dir: string): string | undefined {
  for (let at = dir, depth = 0; depth < 64; depth++) {
    if (existsSync(join(at, '.git'))) return at;
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
  return undefined;
}
