import { IcError } from './errors';

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

// Owners are 1–128 printable characters: they appear in tables, JSON and hook messages.
export function validateOwner(owner: string | undefined, flag = '--owner'): string {
  if (owner === undefined || owner === '') {
    throw new IcError('USAGE', `an owner is required: pass ${flag} NAME or set IC_OWNER`, { hint: 'Try: export IC_OWNER=alice' });
  }
  if ([...owner].length > 128) throw new IcError('INVALID_INPUT', 'owner may be at most 128 characters', { value: owner.slice(0, 140) });
  if (CONTROL.test(owner) || owner.trim() === '') {
    throw new IcError('INVALID_INPUT', 'owner must be printable characters (no control characters, not blank)');
  }
  if (/[\ud800-\udfff]/.test(owner.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
    throw new IcError('INVALID_INPUT', 'owner is not valid Unicode');
  }
  return owner;
}
