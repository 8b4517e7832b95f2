import { describe, expect, it } from 'vitest';
import { chooseOutput } from '../../src/cli/format';
import { escapeControls, lockState, shortOwner } from '../../src/cli/render';
import { rewriteHelpArgs } from '../../src/cli/help/args';

describe('chooseOutput: a flag beats IC_FORMAT, which beats the terminal test', () => {
  it.each([
    { argv: ['list'], env: {}, tty: true, format: 'table', color: true },
    { argv: ['list'], env: {}, tty: false, format: 'json', color: false },
    { argv: ['list'], env: { NO_COLOR: '1' }, tty: true, format: 'table', color: false },
    { argv: ['list'], env: { NO_COLOR: '' }, tty: true, format: 'table', color: true },
    { argv: ['list'], env: { TERM: 'dumb' }, tty: true, format: 'table', color: false },
    { argv: ['list'], env: { IC_FORMAT: 'table' }, tty: false, format: 'table', color: false },
    { argv: ['list'], env: { IC_FORMAT: 'json' }, tty: true, format: 'json', color: false },
    { argv: ['list', '--format', 'json'], env: { IC_FORMAT: 'table' }, tty: true, format: 'json', color: false },
    { argv: ['list', '--format=table'], env: { IC_FORMAT: 'json' }, tty: false, format: 'table', color: false },
    { argv: ['list', '--json', '--format', 'table'], env: {}, tty: true, format: 'json', color: false },
    { argv: ['lock', 'x', '--', 'cmd', '--json'], env: {}, tty: true, format: 'table', color: true },
  ])('$argv with $env on a tty=$tty: $format', ({ argv, env, tty, format, color }) => {
    expect(chooseOutput(argv, env, tty)).toEqual({ format, color });
  });

  it('refuses anything but table or json as a usage error', () => {
    expect(() => chooseOutput(['list', '--format', 'yaml'], {}, true)).toThrow(/--format must be table or json, got "yaml"/);
    expect(() => chooseOutput(['list', '--format'], {}, true)).toThrow(/--format needs a value/);
    expect(() => chooseOutput(['list'], { IC_FORMAT: 'csv' }, false)).toThrow(/IC_FORMAT must be table or json/);
  });
});

describe('table cells', () => {
  it('shortens the uuid in Claude owners and clips very long owners', () => {
    expect(shortOwner('claude-1a2b3c4d-1111-2222-3333-444455556666')).toBe('claude-1a2b3c4d');
    expect(shortOwner('claude-1a2b3c4d-1111-2222-3333-444455556666/9f8e7d6c5b4a39281706')).toBe('claude-1a2b3c4d/9f8e7d6c');
    expect(shortOwner('a-very-long-human-chosen-owner-name-for-ci')).toBe('a-very-long-human-chosen-owner-…');
    expect(shortOwner('alice')).toBe('alice');
  });

  it('says active, delay (lapsed within the lock-delay, swept or not), lapsed, or why it ended', () => {
    const now = Date.parse('2030-01-01T10:00:00Z');
    const lock = (expires: string, released: string | null = null, why: string | null = null) =>
      ({ expires_at: expires, released_at: released, release_reason: why }) as Parameters<typeof lockState>[0];
    expect(lockState(lock('2030-01-01T10:05:00Z'), now, 60_000)).toBe('active');
    expect(lockState(lock('2030-01-01T09:59:30Z'), now, 60_000)).toBe('delay');
    expect(lockState(lock('2030-01-01T09:59:30Z', '2030-01-01T09:59:40Z', 'expired'), now, 60_000)).toBe('delay');
    expect(lockState(lock('2030-01-01T09:58:00Z'), now, 60_000)).toBe('lapsed');
    expect(lockState(lock('2030-01-01T10:05:00Z', '2030-01-01T09:59:00Z', 'force_released'), now, 60_000)).toBe('force_released');
  });
});

describe('rewriteHelpArgs', () => {
  it.each([
    [
      ['help', 'reserve'],
      ['coordination', 'reserve', '--help'],
    ],
    [
      ['coord', 'help', 'list'],
      ['coordination', 'list', '--help'],
    ],
    [
      ['coordination', 'help'],
      ['coordination', '--help'],
    ],
    [['help'], ['--help']],
    [
      ['help', 'init'],
      ['init', '--help'],
    ],
    [
      ['coord', 'help', 'doctor'],
      ['doctor', '--help'],
    ],
    [['-V'], ['--version']],
    [
      ['coord', 'reserve', 'help'],
      ['coord', 'reserve', 'help'],
    ],
  ])('%j → %j', (argv, expected) => {
    expect(rewriteHelpArgs(argv)).toEqual(expected);
  });

  it('names an unknown command', () => {
    expect(() => rewriteHelpArgs(['help', 'nope'])).toThrow('there is no command named "nope"');
  });
});

describe('escapeControls: what a table or message line shows of text from outside', () => {
  it('keeps line breaks, shows a tab (as in a libpq message) as a space, and escapes other control characters', () => {
    expect(escapeControls('could not connect\n\tIs the server running?')).toBe('could not connect\n Is the server running?');
    expect(escapeControls('a\u001b[31mb\u200bc')).toBe('a\\u{1B}[31mb\\u{200B}c');
  });
});
