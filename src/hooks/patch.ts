// Paths a Codex `apply_patch` body touches: its `*** Add File:`, `*** Update File:`, `*** Delete File:`
// and `*** Move to:` lines (both sides of a move), each once, in order.
const HEADER = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;

export function pathsFromPatch(patch: string): string[] {
  const paths: string[] = [];
  for (const rawLine of patch.split('\n')) {
    const match = HEADER.exec(rawLine.replace(/\r$/, ''));
    const path = match?.[1]?.trim();
    if (path && !paths.includes(path)) paths.push(path);
  }
  return paths;
}

// Is this text an apply_patch envelope (and not, say, a shell command)?
export function isPatch(text: string): boolean {
  return /^\s*\*\*\* Begin Patch/.test(text);
}
