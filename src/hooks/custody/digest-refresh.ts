import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { isLiteral, matchPath, unescapeLiteral } from '../../core/glob';
import { writeTransaction, type CoordContext } from '../../coord/context';
import { EVERYTHING } from '../../store/connection';
import { openRequestsIn } from '../../coord/handoff';
import { allSessions, digestDir, digestGeneration, digestPath, earliestExpiries, ownersEditing, scopeRecords, unreleasedFileLocks } from '../../store/custody-digest';
import { isServerDb } from '../../store/discover';
import { DIGEST_VERSION, type Digest, type DigestScope } from '../fast/digest';

// A lock that lapsed this long ago is left out of the expiries: a clock a little behind may still see it live.
const LAPSE_MARGIN_MS = 60_000;

// Writes the digest of the context's scope, under the write lock, so no write can land between what it reads and its rename: any later write that
// changes what it says deletes it (src/coord/context.ts). Run at the end of a shell hook that took the
// long way; a failure only means the next command takes the long way too.
export async function refreshDigest(ctx: CoordContext): Promise<void> {
  if (ctx.dbMissing || isServerDb(ctx.dbLocation)) return; // no digest beside a server database: the fast path is off there
  try {
    // Everything: the digest holds every scope's sessions and expiries, and no write may land before its rename.
    await writeTransaction(ctx, EVERYTHING, async (now) => {
      const generation = await digestGeneration(ctx.db);
      if (generation === undefined) return;
      const digest: Digest = {
        v: DIGEST_VERSION,
        generation,
        written_at: now,
        sessions: (await allSessions(ctx.db)).map((s) => [s.owner, s.base, s.host, s.boot, s.pid, s.start, s.last_seen, s.told_until]),
        expiries: (await earliestExpiries(ctx.db, now - LAPSE_MARGIN_MS)).map((row) => [row.owner, row.expires_at]),
        scopeDir: ctx.scopeDir,
        scope: await scopeDigest(ctx, now),
      };
      const path = digestPath(ctx.dbLocation.path, ctx.scopeDir);
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(digest));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        mkdirSync(digestDir(ctx.dbLocation.path), { recursive: true });
        writeFileSync(tmp, JSON.stringify(digest));
      }
      renameSync(tmp, path);
    });
  } catch {
    // the digest is an optimisation: without it every shell hook opens the database
  }
}

async function scopeDigest(ctx: CoordContext, now: number): Promise<DigestScope> {
  const locks = await unreleasedFileLocks(ctx.db, ctx.scope);
  const literals = new Set(locks.filter((lock) => isLiteral(lock.pattern)).map((lock) => unescapeLiteral(lock.pattern)));
  const globs = locks.filter((lock) => !isLiteral(lock.pattern));
  const covered = (path: string): boolean => literals.has(path) || globs.some((lock) => matchPath(lock.pattern, path));
  return {
    key: ctx.scope,
    locks: locks.map((lock) => [lock.id, lock.owner, lock.pattern, lock.created_at, lock.expires_at]),
    // Records of absent files are left out: the fast path takes an absent file with no record as absent.
    records: (await scopeRecords(ctx.db, ctx.scope)).filter((record) => record.blob !== null && covered(record.path)).map((r) => [r.path, r.owner, r.blob, r.mode, r.stat, r.source, r.recorded_at]),
    editing: await ownersEditing(ctx.db, ctx.scope),
    requests: (await openRequestsIn(ctx, () => true, now)).map((request) => [request.id, request.holder]),
  };
}
