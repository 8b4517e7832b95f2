import { Command } from 'commander';
import { overlaps } from '../../core/glob';
import { canonicalFilePattern } from '../../coord/paths';
import { projectFor, commonCommand, type CommonOptions } from '../common';
import { success, type Reply } from '../reply';

export function overlapCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('overlap', 'can two patterns match a common path? (exit 0 either way)')
    .argument('<a>', 'first pattern')
    .argument('<b>', 'second pattern')
    .action((a: string, b: string, options: CommonOptions) => emit(runOverlap(a, b, options)));
}

// Needs no database: it answers from the pattern language alone. Patterns are read from the scope root, not
// the current directory: the answer is about two patterns as stored, wherever it is asked from.
function runOverlap(rawA: string, rawB: string, options: CommonOptions): Reply {
  const project = projectFor(options);
  const a = canonicalFilePattern(project, rawA);
  const b = canonicalFilePattern(project, rawB);
  const result = overlaps(a, b);
  const json = result.overlap ? { overlap: true, example: result.example, a, b } : { overlap: false, a, b };
  return success(json, () => (result.overlap ? `overlap: both match ${result.example}` : 'no overlap'));
}
