// The hook wire format is parsed here and nowhere else: text → a plain object, or a problem to report.
export type Payload = Record<string, unknown>;

export type ParsedPayload = { ok: true; value: Payload } | { ok: false; problem: string };

export function parsePayload(text: string, truncated = false): ParsedPayload {
  if (truncated) return { ok: false, problem: 'the hook input is larger than ic reads; it was not checked' };
  if (text.trim() === '') return { ok: false, problem: 'the hook received no input on stdin' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `the hook input is not JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, problem: 'the hook input is not a JSON object' };
  }
  return { ok: true, value: value as Payload };
}

// A non-empty string at `key` of an object, else undefined; unknown fields are simply never read.
export function stringField(value: unknown, key: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' && field !== '' ? field : undefined;
}

export function objectField(value: unknown, key: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const field = (value as Record<string, unknown>)[key];
  return field !== null && typeof field === 'object' && !Array.isArray(field) ? (field as Record<string, unknown>) : undefined;
}
