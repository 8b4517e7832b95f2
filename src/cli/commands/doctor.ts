import { Command } from 'commander';
import { IcError } from '../../core/errors';
import { countOf } from '../../core/plural';
import { clockFromEnv, resolveWorkspace } from '../../coord/context';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { shellQuote } from '../../core/shell';
import { canonicalDir, DB_DIR, isServerDb } from '../../store/discover';
import { diagnosePostgres } from '../../store/postgres/health';
import { projectBindingCheck } from '../../coord/project-binding';
import { diagnose, failed, type HealthReport } from '../../store/health';
import { hookChecks } from '../../hooks/install/doctor-checks';
import { commonCommand, withContext, type CommonOptions } from '../common';
import { repairClock } from '../../coord/clock';
import { failure, success, type Reply } from '../reply';

export function doctorCommand(emit: (reply: Reply) => void): Command {
  return commonCommand('doctor', 'check the database: location, file system, integrity, schema, journal mode, lock counts, and what to do')
    .option('--repair-clock', 'date events and locks stamped in the future (by a write with a wrong clock) now, then check')
    .action(async (options: DoctorOptions) => emit(options.repairClock ? await runRepairClock(options) : await runDoctor(options)));
}

interface DoctorOptions extends CommonOptions {
  repairClock?: boolean;
}

// The one doctor that writes: it opens the database as a writer would (so it must exist and be ic's).
async function runRepairClock(options: DoctorOptions): Promise<Reply> {
  return withContext(options, true, async (ctx) => {
    const repaired = await repairClock(ctx);
    return success({ repaired: { events: repaired.events, locks: repaired.locks, dated: new Date(repaired.now).toISOString() } }, () =>
      repaired.events + repaired.locks === 0
        ? 'nothing was dated in the future'
        : `dated ${countOf(repaired.events, 'event')} and ${countOf(repaired.locks, 'lock')} at ${new Date(repaired.now).toISOString()}`,
    );
  });
}

// Exit codes: 0 healthy; 1 usable but something needs attention (an answer, like `check`'s "not free":
// ok stays true); 69 ic cannot use the database (ok false, error DB_UNAVAILABLE, with the full report).
// Doctor never creates, migrates or converts the database.
async function runDoctor(options: CommonOptions): Promise<Reply> {
  const project = resolveWorkspace(process.cwd(), { env: process.env, dbFlag: options.db, scopeFlag: options.scope });
  const location = project.db;
  const report = isServerDb(location)
    ? await diagnosePostgres(location, process.env, clockFromEnv(process.env), project.unmarked ? undefined : projectBindingCheck(location.path, project.projectRoot, project.git))
    : await diagnose(location, process.env, clockFromEnv(process.env)(), project.legacyDb);
  if (project.unmarked && location.source === 'project') noProjectHere(report, project.projectRoot);
  if (location.source === 'project' && !project.unmarked) addChecks(report, strayRootChecks(project.projectRoot, canonicalDir(homedir())));
  addChecks(report, hookChecks(project.projectRoot, process.env));
  const json = { healthy: report.status === 'healthy', ...report };
  if (report.status === 'unusable') {
    const first = report.checks.find((check) => !check.ok && check.severity === 'error')!;
    const error = new IcError('DB_UNAVAILABLE', `${first.name}: ${first.detail}; ${first.fix ?? 'see the checks'}`, { path: location.path, check: first.name, hint: first.fix });
    return failure(error, json, () => humanReport(report));
  }
  return success(json, () => humanReport(report), report.status === 'healthy' ? 0 : 1);
}

// Outside git with no `ic init` root, no write creates a database: say so, and how to start one.
function noProjectHere(report: HealthReport, dir: string): void {
  const location = report.checks.find((check) => check.name === 'location');
  if (!location) return;
  const detail = `${dir} is not in a git repository or below an \`ic init\` directory: hooks coordinate nothing here and commands exit 69`;
  Object.assign(location, failed('location', detail, "run `git init` (or `ic init` in the project's root directory), or name a database with --db PATH or IC_DB", 'warning'));
  if (report.status === 'healthy') report.status = 'problems';
}

// ic 0.2 created <cwd>/.ic/ic.db for a hook or command run anywhere, so a session started at / or in $HOME
// left a root there that makes every directory below it one project. Said, never removed: it may be wanted.
export function strayRootChecks(root: string, home: string): HealthReport['checks'] {
  if (root !== '/' && root !== home) return [];
  const dir = join(root, DB_DIR);
  const what = root === '/' ? 'every directory outside git' : `every directory outside git below ${root}`;
  return [
    failed(
      'broad_root',
      `${dir} makes ${what} one project (ic 0.2 created such a directory for any run there)`,
      `if nobody ran \`ic init\` in ${root} on purpose, remove it: rm -r ${shellQuote(dir)}`,
      'warning',
    ),
  ];
}

// Hook findings never make the database unusable: at worst they turn "healthy" into "problems" (a notice,
// a step the client itself asks for, leaves it healthy).
function addChecks(report: HealthReport, checks: HealthReport['checks']): void {
  report.checks.push(...checks);
  if (report.status === 'healthy' && checks.some((check) => !check.ok && check.severity !== 'notice')) report.status = 'problems';
}

function humanReport(report: HealthReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.map((check) => {
    const mark = check.ok ? 'ok  ' : check.severity === 'error' ? 'FAIL' : check.severity === 'notice' ? 'note' : 'warn';
    const fix = check.ok || !check.fix ? '' : `\n${' '.repeat(width + 8)}fix: ${check.fix}`;
    return `${mark}  ${check.name.padEnd(width)}  ${check.detail}${fix}`;
  });
  const notes = report.checks.filter((check) => !check.ok && check.severity === 'notice').length;
  const healthy = notes === 0 ? 'healthy' : `healthy, ${notes} step${notes === 1 ? '' : 's'} left to you (see note)`;
  const verdict = report.status === 'healthy' ? healthy : report.status === 'problems' ? 'usable, with problems (see fix)' : 'UNUSABLE (see fix)';
  return [`database ${report.db.path}: ${verdict}`, ...lines].join('\n');
}
