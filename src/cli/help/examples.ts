import { clientList } from '../../hooks/install/clients';

export interface Example {
  /** What it does, as one line; says the exit code when it is not 0. */
  says: string;
  /** As typed in a shell, from the root of a git repository. */
  run: string;
  /** The documented exit code (test/cli/help-examples.test.ts runs every example and checks it). */
  exit?: number;
}

export interface CommandExamples {
  /** Run first, silently, in the test's fresh repository: what the examples assume. */
  setup?: string[];
  examples: Example[];
}

// 1-3 examples per command, shown under "Examples:" in its --help and in the man page.
export const EXAMPLES: Record<string, CommandExamples> = {
  reserve: {
    examples: [
      { says: 'Reserve everything under src/ for 15 minutes, saying why', run: `IC_OWNER=alice coord reserve 'src/**' --reason "refactor auth"` },
      { says: 'Someone else asks for a file inside it: refused, with who, why, until when (exit 1)', run: 'IC_OWNER=bob coord reserve src/api.ts', exit: 1 },
      { says: 'Wait up to 5 minutes for a free pattern, shared with other readers, for an hour', run: `IC_OWNER=bob coord reserve 'docs/**' --shared --ttl 1h --wait 5m` },
    ],
  },
  check: {
    setup: [`IC_OWNER=alice coord reserve 'src/**'`],
    examples: [
      { says: 'Is src/app.ts free for anyone new? (exit 1: no, and who holds it)', run: 'coord check src/app.ts', exit: 1 },
      { says: "Alice's own lock never blocks her", run: 'IC_OWNER=alice coord check src/app.ts' },
    ],
  },
  release: {
    setup: [`IC_OWNER=alice coord reserve 'src/**' 'docs/**'`],
    examples: [
      { says: 'Release one pattern', run: `IC_OWNER=alice coord release --pattern 'src/**'` },
      { says: "Release all of alice's file locks here", run: 'IC_OWNER=alice coord release --all' },
      { says: 'Nothing left to release (exit 1)', run: 'IC_OWNER=alice coord release --all', exit: 1 },
    ],
  },
  renew: {
    setup: [`IC_OWNER=alice coord reserve 'src/**'`],
    examples: [{ says: "Keep all of alice's locks for another hour", run: 'IC_OWNER=alice coord renew --ttl 1h' }],
  },
  list: {
    setup: [`IC_OWNER=alice coord reserve 'src/**' --reason "refactor auth"`, 'IC_OWNER=bob coord claim issue-14'],
    examples: [
      { says: 'What binds now: owner, pattern, reason, since, until', run: 'coord list --active' },
      { says: 'Every column (id, token, type, mode, full owner, scope)', run: 'coord list --active --wide' },
      { says: "One owner's locks as JSON, even on a terminal", run: 'coord list --owner alice --format json' },
    ],
  },
  who: {
    setup: [`IC_OWNER=alice coord reserve 'src/**' --reason "refactor auth"`],
    examples: [
      { says: 'Who holds what, most recently active first', run: 'coord who' },
      { says: 'One line per lock, so grep finds an owner', run: 'coord who --format table | grep alice' },
    ],
  },
  verify: {
    examples: [{ says: 'Is lock k3x9a2bq still held with fencing token 42? (exit 1: no such lock)', run: 'coord verify k3x9a2bq 42', exit: 1 }],
  },
  overlap: {
    examples: [
      { says: 'Can both match one path? (yes: src/api/a.ts)', run: `coord overlap 'src/**/*.ts' 'src/api/*'` },
      { says: 'They never can (still exit 0)', run: `coord overlap '*.ts' '*.js'` },
    ],
  },
  transfer: {
    setup: [`IC_OWNER=alice coord reserve 'src/**'`],
    examples: [{ says: "Hand alice's locks to bob, with new fencing tokens", run: 'IC_OWNER=alice coord transfer --from alice --to bob' }],
  },
  sweep: {
    examples: [
      { says: 'Mark expired locks released (cron it, or let reads ignore them)', run: 'coord sweep' },
      { says: 'How much a week-old cleanup would delete, deleting nothing', run: 'coord sweep --older-than 7d --dry-run' },
    ],
  },
  lock: {
    setup: [`printf '{"scripts":{"test":"echo tests pass"}}' > package.json`],
    examples: [
      { says: 'Run the tests under a repo-wide mutex (waits for it; released when they end)', run: 'IC_OWNER=ci coord lock tests -- npm test' },
      { says: 'Take the mutex for 10 minutes, saying why', run: `IC_OWNER=alice coord lock tests --ttl 10m --reason "full test run"` },
      { says: 'Give up at once while someone holds it (exit 75)', run: 'IC_OWNER=bob coord lock tests -n -- npm test', exit: 75 },
    ],
  },
  unlock: {
    setup: ['IC_OWNER=alice coord lock tests'],
    examples: [{ says: 'Release the named lock tests', run: 'IC_OWNER=alice coord unlock tests' }],
  },
  claim: {
    examples: [
      { says: 'Claim a work item for 30 minutes, saying what you do with it', run: `IC_OWNER=alice coord claim issue-14 --reason "fixing the README"` },
      { says: 'Someone else tries: refused, with who and until when (exit 1)', run: 'IC_OWNER=bob coord claim issue-14', exit: 1 },
    ],
  },
  unclaim: {
    setup: ['IC_OWNER=alice coord claim issue-14'],
    examples: [{ says: 'Give the work item back', run: 'IC_OWNER=alice coord unclaim issue-14' }],
  },
  heartbeat: {
    setup: [`IC_OWNER=alice coord reserve 'src/**'`],
    examples: [{ says: "Keep alice's locks and claims alive (cheap enough for every tool call)", run: 'IC_OWNER=alice coord heartbeat' }],
  },
  events: {
    setup: [`IC_OWNER=alice coord reserve 'src/**'`],
    examples: [
      { says: 'The last events, newest at the bottom (add --follow to keep watching)', run: 'coord events' },
      { says: 'The last ten minutes, at most 20 events', run: 'coord events --since 10m --limit 20' },
    ],
  },
  undo: {
    setup: [`IC_OWNER=alice coord reserve src/app.ts`],
    examples: [
      { says: 'Put back what a restore overwrote: event 42 of coord events (exit 1: no such event here)', run: 'IC_OWNER=bob coord undo 42', exit: 1 },
      { says: 'Event 1 is a reservation: it kept no content, nothing to undo (exit 65)', run: 'IC_OWNER=bob coord undo 1', exit: 65 },
    ],
  },
  stats: {
    examples: [{ says: 'Grants, conflicts and the most contended patterns of the last hour', run: 'coord stats --since 1h' }],
  },
  hook: {
    examples: [{ says: 'The git pre-commit guard by hand (what `install --git` wires up)', run: 'coord hook git-pre-commit' }],
  },
  install: {
    examples: [
      { says: 'What install would change, writing nothing', run: 'coord install --dry-run' },
      { says: `Wire the agents found here (${clientList()}) and the git pre-commit guard into this repository`, run: 'coord install' },
    ],
  },
  uninstall: {
    setup: ['coord install'],
    examples: [{ says: 'Remove the hooks and restore what they replaced', run: 'coord uninstall' }],
  },
  statusline: {
    examples: [{ says: "The line Claude Code's statusLine shows (Claude passes its session as JSON on stdin)", run: `echo '{"session_id":"abc"}' | coord statusline` }],
  },
  init: {
    examples: [{ says: 'Create the database now (any write would)', run: 'ic init' }],
  },
  doctor: {
    setup: ['ic init'],
    examples: [{ says: 'Check the database and say what to do', run: 'ic doctor' }],
  },
  whoami: {
    examples: [
      { says: 'Which owner this shell acts as, and why', run: 'IC_OWNER=alice ic whoami' },
      { says: 'No owner here: write commands would refuse (exit 1)', run: 'ic whoami', exit: 1 },
    ],
  },
  config: {
    examples: [
      { says: "The repository's settings", run: 'ic config' },
      { says: 'Claims of owners idle for 30 minutes may be taken over (claim ITEM --take)', run: 'ic config stall-after 30m' },
    ],
  },
  completion: {
    setup: ['mkdir -p ~/.zfunc ~/.config/fish/completions'],
    examples: [
      { says: 'Tab completion in this bash session (add the line to ~/.bashrc)', run: 'source <(ic completion bash)' },
      { says: 'zsh: a completion file on your $fpath', run: 'ic completion zsh > ~/.zfunc/_ic' },
      { says: 'fish', run: 'ic completion fish > ~/.config/fish/completions/ic.fish' },
    ],
  },
  help: {
    examples: [{ says: 'The help of one command', run: 'ic help reserve' }],
  },
};

export function examplesText(name: string): string {
  const entry = EXAMPLES[name];
  if (!entry) return '';
  return `\nExamples:\n${entry.examples.map((example) => `  # ${example.says}\n  $ ${example.run}`).join('\n\n')}\n`;
}
