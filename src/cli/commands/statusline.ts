import { Command } from 'commander';
import { formatStatus, projectStatus, statusContext } from '../../hooks/statusline';
import { readStdinSync } from '../../hooks/stdin';
import { commonCommand, type CommonOptions } from '../common';
import type { Reply } from '../reply';

// `ic coord statusline`: one short line for Claude Code's statusLine. It never fails loudly: any problem
// prints a short line and exits 0. Plain text even when piped (that is how Claude reads it); --json for scripts.
export function statuslineCommand(_emit?: (reply: Reply) => void): Command {
  return commonCommand('statusline', "one short status line for Claude Code's statusLine (reads its JSON on stdin if any)").action(async (options: CommonOptions) => {
    let line = 'ic: ?';
    let counts;
    try {
      const stdin = readStdinSync(1024 * 1024, 200);
      const { cwd, me } = statusContext(stdin.text, process.cwd());
      const env = options.db ? { ...process.env, IC_DB: options.db } : process.env;
      counts = await projectStatus(cwd, env, me);
      line = formatStatus(counts, me);
    } catch {
      // the line stays 'ic: ?'
    }
    process.stdout.write(options.json ? `${JSON.stringify({ ok: true, line, ...(counts ?? {}) })}\n` : `${line}\n`);
    process.exitCode = 0;
  });
}
