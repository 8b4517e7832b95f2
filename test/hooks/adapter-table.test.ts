import { describe, expect, it } from 'vitest';
import { AGENT_ADAPTERS, adapterOfHook } from '../../src/hooks/agents';
import { HOOK_NAMES } from '../../src/hooks/names';

// The dispatcher finds a hook's use case in its client's event table: each agent hook name the installer
// may write must be one event of one adapter, and no adapter may have an event without its hook name.
describe('the adapter table', () => {
  it('every agent hook name is one adapter event, and every adapter event has its hook name', () => {
    const events = Object.entries(AGENT_ADAPTERS).flatMap(([agent, adapter]) => Object.keys(adapter.events).map((event) => `${agent}-${event}`));
    expect(HOOK_NAMES.filter((name) => !name.startsWith('git-')).sort()).toEqual(events.sort());
    for (const name of HOOK_NAMES) expect(adapterOfHook(name) === undefined).toBe(name.startsWith('git-'));
  });

  it('a word that is no client, or no event of its client, names no agent hook', () => {
    expect(adapterOfHook('claude-constructor')).toBeUndefined();
    expect(adapterOfHook('toString-pre-tool')).toBeUndefined();
    expect(adapterOfHook('gemini-pre-edit')).toBeUndefined();
    expect(adapterOfHook('codex-pre-shell')?.adapter.agent).toBe('codex');
  });
});
