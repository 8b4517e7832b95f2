// What a holder's model is told of hand-off requests: bounded whatever the number of askers (issue #21:
// 300 asks made a 50 KB hook message).
import { describe, expect, it } from 'vitest';
import { handoffContext, withContext } from '../../src/hooks/liveness';

const request = (i: number) => ({ id: i, item: 'bd-1', holder: 'claude-H', by: `asker-${i}`, at: i, reason: `${'x'.repeat(1_000)} ${i}` });

describe('handoffContext', () => {
  it('300 askers with long words make at most a few KB, the latest first kept', () => {
    const text = handoffContext(Array.from({ length: 300 }, (_, i) => request(i)));
    expect(text.length).toBeLessThan(3_000);
    expect(text).toContain('asker-299');
    expect(text).not.toContain('asker-294 ');
    expect(text).toContain('and 295 earlier requests');
  });

  it('joins an existing reply: a deny keeps its decision and gains the context', () => {
    const deny = `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'held' } })}\n`;
    const joined = JSON.parse(withContext(deny, { owner: 'o', context: 'ctx', eventName: 'PreToolUse' }));
    expect(joined.hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'held', additionalContext: 'ctx' });
    expect(JSON.parse(withContext('', { owner: 'o', context: 'ctx', eventName: 'UserPromptSubmit' }))).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'ctx' } });
    expect(withContext('not json', { owner: 'o', context: 'ctx', eventName: 'PreToolUse' })).toBe('not json');
  });
});
