// Where each top-level member of a JSON object sits in its text, so one member can be replaced, added or
// removed while every other byte of the file stays as the user wrote it. The text must already be valid JSON.
export interface Member {
  key: string;
  keyStart: number;
  valueStart: number;
  valueEnd: number;
}

export interface ObjectSpans {
  open: number;
  close: number;
  members: Member[];
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

function skipString(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return i;
}

// The end of the value starting at i (strings, containers, and bare literals or numbers).
function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (ch === '"') i = skipString(text, i) - 1;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return i;
  }
  while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
  return i;
}

export function objectSpans(text: string): ObjectSpans {
  const open = skipWhitespace(text, 0);
  const members: Member[] = [];
  let i = skipWhitespace(text, open + 1);
  while (text[i] === '"') {
    const keyStart = i;
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    i = skipWhitespace(text, keyEnd);
    const valueStart = skipWhitespace(text, i + 1); // past ':'
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, keyStart, valueStart, valueEnd });
    i = skipWhitespace(text, valueEnd);
    if (text[i] === ',') i = skipWhitespace(text, i + 1);
  }
  return { open, close: i, members };
}

// Any JSON value as spans: containers know where each member/element sits, so the installer can add or
// drop one element and leave every other byte (the user's own entries, their formatting) as written.
export interface JsonNode {
  start: number;
  end: number;
  /** Object members (key and value); undefined for arrays and scalars. */
  members?: { key: string; keyStart: number; value: JsonNode }[];
  /** Array elements; undefined for objects and scalars. */
  elements?: JsonNode[];
}

export function parseNode(text: string, at = 0): JsonNode {
  const start = skipWhitespace(text, at);
  const c = text[start];
  if (c === '{') {
    const members: NonNullable<JsonNode['members']> = [];
    let i = skipWhitespace(text, start + 1);
    while (text[i] === '"') {
      const keyStart = i;
      const keyEnd = skipString(text, i);
      const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
      const colon = skipWhitespace(text, keyEnd);
      const value = parseNode(text, colon + 1);
      members.push({ key, keyStart, value });
      i = skipWhitespace(text, value.end);
      if (text[i] === ',') i = skipWhitespace(text, i + 1);
    }
    return { start, end: i + 1, members };
  }
  if (c === '[') {
    const elements: JsonNode[] = [];
    let i = skipWhitespace(text, start + 1);
    while (i < text.length && text[i] !== ']') {
      const element = parseNode(text, i);
      elements.push(element);
      i = skipWhitespace(text, element.end);
      if (text[i] === ',') i = skipWhitespace(text, i + 1);
    }
    return { start, end: i + 1, elements };
  }
  return { start, end: skipValue(text, start) };
}
