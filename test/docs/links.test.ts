import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs' navigation cannot drift: every relative link in README.md and docs/ reaches a file that exists
// and, with a #fragment into a markdown page, a heading of that page; the guide's table of contents is
// exactly its headings.

const ROOT = join(__dirname, '..', '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith('.md') ? [path] : [];
  });
}
const PAGES = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))];

// The text outside fenced code blocks (a link or heading in a code sample is not one).
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

interface Heading {
  level: number;
  text: string;
  anchor: string;
}

// Headings with the anchors GitHub gives them: lower case, punctuation dropped (hyphens and underscores kept),
// each space a hyphen; a repeated anchor gets -1, -2, ….
function headings(markdown: string): Heading[] {
  const seen = new Map<string, number>();
  return [...prose(markdown).matchAll(/^(#{1,6}) +(.+?) *$/gm)].map((match) => {
    const text = match[2]!;
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return { level: match[1]!.length, text, anchor: count === 0 ? base : `${base}-${count}` };
  });
}

const anchorsOf = (file: string) => new Set(headings(readFileSync(file, 'utf8')).map((heading) => heading.anchor));

describe('every relative link in README.md and docs/ resolves', () => {
  for (const page of PAGES)
    it(relative(ROOT, page), () => {
      const text = prose(readFileSync(page, 'utf8')).replace(/`[^`\n]*`/g, ''); // nor is a link inside inline code
      const broken: string[] = [];
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // https:, mailto:
        const [path, fragment] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? page : join(dirname(page), decodeURIComponent(path));
        if (!existsSync(file)) broken.push(`${target}: no such file`);
        else if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment)) broken.push(`${target}: no such heading`);
      }
      expect(broken).toEqual([]);
    });
});

describe('README.md links every page of docs/', () => {
  it('user pages in docs/, design notes in docs/design/: none is an orphan', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const linked = new Set([...readme.matchAll(/\]\((docs\/[^)#\s]+)/g)].map((match) => match[1]!));
    expect(PAGES.map((page) => relative(ROOT, page)).filter((page) => page.startsWith('docs/') && !linked.has(page))).toEqual([]);
  });
});

describe("docs/guide.md's table of contents", () => {
  const guide = readFileSync(join(ROOT, 'docs', 'guide.md'), 'utf8');

  it('lists exactly its ## and ### headings, in order, with their anchors', () => {
    const body = guide.slice(guide.indexOf('\n## Contents\n') + 1);
    const listed = /^## Contents\n\n((?:\s*- .*\n)+)/.exec(body);
    expect(listed, 'no "## Contents" list').not.toBeNull();
    const expected = headings(guide)
      .filter((heading) => (heading.level === 2 || heading.level === 3) && heading.text !== 'Contents')
      .map((heading) => `${heading.level === 3 ? '  ' : ''}- [${heading.text}](#${heading.anchor})`);
    expect(listed![1]!.trimEnd().split('\n')).toEqual(expected);
  });
});
