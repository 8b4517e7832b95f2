import { IcError } from './errors';

// Names of named locks and claims: any printable text, compared exactly.
export function validateName(input: string, what: string): string {
  const name = input.normalize('NFC');
  if (name === '' || name.trim() === '') throw new IcError('INVALID_INPUT', `${what} must not be empty`);
  if (/[\u0000-\u001f\u007f]/.test(name)) throw new IcError('INVALID_INPUT', `${what} must not contain control characters`);
  if ([...name].length > 256) throw new IcError('INVALID_INPUT', `${what} may be at most 256 characters`);
  return name;
}
