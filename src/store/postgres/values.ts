import { IcError } from '../../core/errors';

// Type OIDs (pg_type) whose text form ic reads back as JavaScript numbers or booleans; everything else stays text.
const INTEGER_TYPES = new Set([20, 21, 23, 26]); // int8, int2, int4, oid
const DECIMAL_TYPES = new Set([700, 701, 1700]); // float4, float8, numeric (SUM and AVG of integers are numeric)
const BOOLEAN_TYPE = 16;

export type SqlParameter = string | number | bigint | boolean | null | undefined;

// A parameter as libpq's text protocol carries it. Booleans go as 1/0, which both integer and boolean columns
// accept (SQLite, ic's other engine, has no boolean type either).
export function encodeParameter(value: SqlParameter, index: number): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new IcError('INTERNAL', `cannot pass ${String(value)} as SQL parameter ${index + 1}`);
}

export function decoderFor(typeOid: number): ((text: string) => unknown) | undefined {
  if (INTEGER_TYPES.has(typeOid)) return decodeInteger;
  if (DECIMAL_TYPES.has(typeOid)) return Number;
  if (typeOid === BOOLEAN_TYPE) return (text) => text === 't';
  return undefined;
}

// BIGINT columns hold epoch milliseconds, ids and tokens: far below 2^53, so a JavaScript number is exact. A
// value past that would lose digits silently, so it is an error instead.
function decodeInteger(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new IcError('INTERNAL', `the integer ${text} read from PostgreSQL is too large for a JavaScript number`);
  return value;
}
