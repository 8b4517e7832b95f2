// The programmatic surface, for benchmarks, fuzzers and embedding: the same use cases the CLI runs.
export { createContext, writeTransaction, readTransaction, ownScope, claimWriteScope, viewWriteScope, type CoordContext } from './coord/context';
export { EVERYTHING, type Connection, type WriteScope } from './store/connection';
export { reserveOnce } from './coord/reserve';
export { check } from './coord/check';
export { release } from './coord/release';
export { sweep } from './coord/sweep';
export { renew } from './coord/renew';
export { transfer } from './coord/transfer';
export { CHUNK } from './coord/chunks';
export { canonicalFilePattern } from './coord/paths';
export { overlaps, matchPath, normalizePattern, literalBase } from './core/glob';
export { collectWriteHolds, lastTransactionTimings } from './store/clock';
export { WORK_LIMITS } from './core/conflict';
// Shell custody (#19): the snapshot a before-command hook takes and the restore after it, for benchmarks and tests.
export { snapshotBeforeShell } from './hooks/custody/snapshot';
export { restoreAfterShell } from './hooks/custody/restore';
export { recordHolderWrite } from './hooks/custody/holder-write';
export { readIndex } from './store/git/index-file';
export { writeBlob } from './store/git/git-objects';
