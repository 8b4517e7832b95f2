import { describe, expect, it } from 'vitest';
import { checkTransferAuthority, mayChange } from '../../src/core/authority';
import { IcError } from '../../src/core/errors';
import { EXIT_CODES } from '../../src/cli/exit-codes';

describe('the authority rule', () => {
  it.each([
    ['alice', 'alice', false, true],
    ['bob', 'alice', false, false],
    [undefined, 'alice', false, false],
    ['bob', 'alice', true, true],
  ] as const)('%s may change a lock of %s with force=%s: %s', (actor, holder, force, allowed) => {
    expect(mayChange(actor, holder, force)).toBe(allowed);
  });

  it('refuses a transfer by anyone but --from, and says how to force it', () => {
    expect(() => checkTransferAuthority('bob', 'bob', false)).not.toThrow();
    expect(() => checkTransferAuthority('carol', 'bob', true)).not.toThrow();
    try {
      checkTransferAuthority('carol', 'bob', false);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IcError);
      expect((error as IcError).code).toBe('NOT_OWNER');
      expect(EXIT_CODES[(error as IcError).code]).toBe(1);
      expect((error as IcError).message).toContain('--force');
    }
  });
});
