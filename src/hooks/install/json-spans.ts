// The text must already be valid JSON (the installer parses it first).
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

// The end of the scalar starting at i (a string, a literal or a number): parseNode walks containers itself.
function skipScalar(text: string, i: number): number {
  if (text[i] === '"') return skipString(text, i);
  while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++;
  return i;
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
  return { start, end: skipScalar(text, start) };
}
