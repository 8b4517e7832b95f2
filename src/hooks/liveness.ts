import { hookClient } from '../coord/client-process';
import { existingContext, resolveWorkspace, type CoordContext, type Workspace } from '../coord/context';
import type { OpenRequest } from '../coord/handoff';
import { explainActingOwner, releaseDeadClients } from '../coord/sessions';
import { stepSession } from '../coord/session-step';
import { codexOwner } from './edit-events';
import { ownerForSession, setLiveOwner, type Agent } from './identity';
import { sameLineage } from '../core/owner';
import { stringField, type ParsedPayload, type Payload } from './payload';
import { envWithin } from './settings';
import type { Deadline } from '../store/deadline';
import { shellTimeoutOf } from './shell-timeout';

// The generic step every agent hook runs first (docs/sessions.md): any hook whose payload names a session
// proves that session alive. It renews the session's locks and claims (rate-limited), extends them over a
// shell command's timeout, gives two live processes of one owner distinct owners, releases the locks of
// client processes that are gone, and collects hand-off requests the session's model has not been told.
// It depends on no list of hook names: the agent is the hook name's first word.

export interface SessionStep {
  /** Empty when there was no database yet: the hook's own work may create it, so runHook asks again after. */
  owner: string;
  /** Text for the model (additionalContext), when the hook's event can carry it. */
  context?: string;
  /** The event name the reply must carry with it. */
  eventName?: string;
  /** The workspace of the session's directory, found once for the whole hook call (its later steps start from it). */
  workspace?: Workspace;
}

// Hook events whose hookSpecificOutput.additionalContext reaches the model, in Claude Code 2.1 and Codex 0.169.
export const CONTEXT_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'SessionStart']);

export function agentOfHook(name: string): string | undefined {
  const agent = name.slice(0, name.indexOf('-'));
  return agent === '' || agent === 'git' ? undefined : agent;
}

// The owner the payload names, before liveness: the same identity functions the adapters use.
function baseOwnerOf(agent: string, payload: Payload, env: NodeJS.ProcessEnv): string | undefined {
  if (agent === 'codex') return codexOwner(payload, env);
  const sessionId = stringField(payload, 'session_id') ?? stringField(payload, 'sessionId') ?? stringField(payload, 'sessionID');
  return sessionId === undefined ? undefined : ownerForSession(agent as Agent, sessionId);
}

// Runs the step; never throws (liveness must not turn a working hook into a failing one).
export async function observeSession(name: string, parsed: ParsedPayload, env: NodeJS.ProcessEnv, cwd: string, deadline: Deadline): Promise<SessionStep | undefined> {
  const agent = agentOfHook(name);
  if (agent === undefined) return undefined;
  if (!parsed.ok) return undefined;
  const base = baseOwnerOf(agent, parsed.value, env);
  if (base === undefined) return undefined;
  const dir = stringField(parsed.value, 'cwd') || env.CLAUDE_PROJECT_DIR || cwd;
  let ctx: CoordContext | undefined;
  try {
    const workspace = resolveWorkspace(dir, { env });
    ctx = await existingContext(workspace, envWithin(env, deadline, 1_000));
    if (ctx === undefined) return { owner: '' }; // no database yet: nothing held, and none is created for this
    const eventName = stringField(parsed.value, 'hook_event_name');
    const tells = eventName !== undefined && CONTEXT_EVENTS.has(eventName);
    const shellTimeoutMs = shellTimeoutOf(name, parsed.value, env);
    const activity = { base, agent, client: hookClient(), ...(shellTimeoutMs === undefined ? {} : { shellTimeoutMs }) };
    const live = await stepSession(ctx, activity, tells ? (liveOwner) => (owner) => sameLineage(owner, liveOwner) : undefined);
    setLiveOwner(base, live.owner);
    return live.requests.length === 0 ? { owner: live.owner, workspace } : { owner: live.owner, workspace, context: handoffContext(live.requests), eventName };
  } catch {
    return undefined;
  } finally {
    ctx?.db.close();
  }
}

const MAX_TOLD = 5;
const MAX_MESSAGE = 300;

// What the holder's model reads: each asker once per item (its latest words), at most MAX_TOLD of them.
export function handoffContext(requests: readonly OpenRequest[]): string {
  const lines = requests.slice(-MAX_TOLD).map(({ item, holder, by, reason }) => {
    const words = reason ? `: ${JSON.stringify(reason.length > MAX_MESSAGE ? `${reason.slice(0, MAX_MESSAGE)}…` : reason)}` : '';
    return `- ${by} asks you (${holder}) to hand over work item ${JSON.stringify(item)}${words}. Answer by finishing and running \`coord unclaim ${item}\`, or \`coord transfer --from ${holder} --to ${by} --pattern ${item}\`.`;
  });
  const more = requests.length > MAX_TOLD ? [`- and ${requests.length - MAX_TOLD} earlier request${requests.length - MAX_TOLD === 1 ? '' : 's'} (\`coord who\` lists them).`] : [];
  return ['ic: hand-off requests from other agents:', ...lines, ...more].join('\n');
}

// Adds the step's text for the model to a hook's reply (a JSON object on stdout, or nothing).
export function withContext(stdout: string, step: SessionStep | undefined): string {
  if (!step?.context || !step.eventName) return stdout;
  let reply: Record<string, unknown> = {};
  if (stdout.trim() !== '') {
    try {
      const parsed = JSON.parse(stdout) as unknown;
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return stdout;
      reply = parsed as Record<string, unknown>;
    } catch {
      return stdout; // not ours to rewrite
    }
  }
  const specific = (reply.hookSpecificOutput ?? {}) as Record<string, unknown>;
  const joined = typeof specific.additionalContext === 'string' ? `${specific.additionalContext}\n${step.context}` : step.context;
  reply.hookSpecificOutput = { ...specific, hookEventName: step.eventName, additionalContext: joined };
  return `${JSON.stringify(reply)}\n`;
}

// Who a git hook acts for (the guard, post-commit): the live agent session whose shell ran git, else
// $IC_OWNER. Dead clients' locks are released first, so a killed agent's files do not block the commit.
export async function ownerOfCommand(cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  let ctx: CoordContext | undefined;
  try {
    ctx = await existingContext(cwd, env);
    if (ctx === undefined) return env.IC_OWNER || undefined;
    await releaseDeadClients(ctx);
    return (await explainActingOwner(ctx, env.IC_OWNER)).owner;
  } catch {
    return env.IC_OWNER || undefined;
  } finally {
    ctx?.db.close();
  }
}
