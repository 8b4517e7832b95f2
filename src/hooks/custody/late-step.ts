import type { Deadline } from '../../store/deadline';
import { stringField, type ParsedPayload } from '../payload';
import { envWithin } from '../settings';
import { CONTEXT_EVENTS, type SessionStep } from '../liveness';
import { noticeLateWrites } from './late-writes';

type LateNotice = { text: string; eventName: string };

// Every Claude Code and Codex hook looks for late writes (late-writes.ts) before its own work (which may
// take a file's content as its holder's), and hands the session's model what it is to be told, beside the
// liveness step's context, in the workspace that step found (none: no database yet). Costs a stat when nothing is pending; a failure only delays the notice.
export async function lateNotices(name: string, parsed: ParsedPayload, env: NodeJS.ProcessEnv, step: SessionStep | undefined, deadline: Deadline): Promise<LateNotice | undefined> {
  if (!(name.startsWith('claude-') || name.startsWith('codex-')) || step?.workspace === undefined) return undefined;
  try {
    if (!parsed.ok) return undefined;
    const eventName = stringField(parsed.value, 'hook_event_name');
    const tell = eventName !== undefined && CONTEXT_EVENTS.has(eventName);
    const text = await noticeLateWrites(step.workspace, step.owner, envWithin(env, deadline, 1_000), tell);
    return text === undefined || eventName === undefined ? undefined : { text, eventName };
  } catch {
    return undefined;
  }
}

export function withLateNotices(step: SessionStep | undefined, late: LateNotice | undefined): SessionStep | undefined {
  if (late === undefined || step === undefined) return step;
  return { ...step, eventName: late.eventName, context: step.context ? `${step.context}\n${late.text}` : late.text };
}
