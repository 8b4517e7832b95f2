import { existsSync, readFileSync, realpathSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

// File systems whose locking or shared memory SQLite's WAL mode cannot rely on: network file systems,
// cluster file systems, and hypervisor shared folders (all documented to break SQLite locking).
const NETWORK_TYPES = new Set([
  'nfs',
  'nfs4',
  'cifs',
  'smb',
  'smb2',
  'smb3',
  'smbfs',
  'ncpfs',
  'afs',
  'openafs',
  'coda',
  '9p',
  'ceph',
  'glusterfs',
  'lustre',
  'gpfs',
  'beegfs',
  'orangefs',
  'pvfs2',
  'ocfs2',
  'gfs2',
  'davfs',
  'vboxsf',
  'vmhgfs',
  'prl_fs',
  'sshfs',
]);
// FUSE file systems report `fuse.<name>`; these names are network or cloud storage.
const NETWORK_FUSE = new Set(['sshfs', 'glusterfs', 'ceph', 'cephfs', 's3fs', 'rclone', 'gcsfuse', 'davfs2', 'juicefs', 'vmhgfs-fuse', 'goofys', 'moosefs', 'lizardfs', 'sshfs.real']);

export const MOUNTINFO_PATH = '/proc/self/mountinfo';

export interface Mount {
  mountPoint: string;
  fsType: string;
  source: string;
}

export interface FileSystemInfo {
  /** e.g. `ext4`, `nfs4`, `fuse.sshfs`; `unknown` where mountinfo is not available (not Linux). */
  type: string;
  mountPoint: string | null;
  source: string | null;
  network: boolean;
}

// mountinfo escapes space, tab, newline and backslash in paths as octal (`\040`).
function unescapeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

// Parses proc(5) mountinfo: `id parent major:minor root mount-point options [optional...] - type source super-options`.
export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash < 0 || dash + 2 >= fields.length) continue;
    mounts.push({ mountPoint: unescapeMountPath(fields[4]!), fsType: fields[dash + 1]!, source: unescapeMountPath(fields[dash + 2]!) });
  }
  return mounts;
}

export function isNetworkFileSystem(fsType: string): boolean {
  const type = fsType.toLowerCase();
  if (NETWORK_TYPES.has(type)) return true;
  return type.startsWith('fuse.') && NETWORK_FUSE.has(type.slice('fuse.'.length));
}

// The mount holding `path`: the longest mount point that is a prefix of it; of equal ones, the last
// mounted (it shadows the earlier ones).
export function mountFor(mounts: readonly Mount[], path: string): Mount | null {
  let best: Mount | null = null;
  for (const mount of mounts) {
    const point = mount.mountPoint;
    const contains = point === '/' || path === point || path.startsWith(`${point}/`);
    if (contains && (!best || point.length >= best.mountPoint.length)) best = mount;
  }
  return best;
}

// Canonical form of the nearest existing ancestor (the database directory may not exist yet).
function existingCanonical(path: string): string {
  let current = resolve(path);
  while (!existsSync(current) && dirname(current) !== current) current = dirname(current);
  try {
    return realpathSync.native(current);
  } catch {
    return current;
  }
}

// Which file system holds `dir`? Reads mountinfo once per call (cheap: a few KB); `IC_MOUNTINFO` points
// at another file instead, a test hook for network file systems that a test machine does not have.
export function detectFileSystem(dir: string, env: NodeJS.ProcessEnv = process.env): FileSystemInfo {
  const source = env.IC_MOUNTINFO || MOUNTINFO_PATH;
  let text: string;
  try {
    text = readFileSync(source, 'utf8');
  } catch {
    return { type: 'unknown', mountPoint: null, source: null, network: false };
  }
  const mount = mountFor(parseMountinfo(text), existingCanonical(dir));
  if (!mount) return { type: 'unknown', mountPoint: null, source: null, network: false };
  return { type: mount.fsType, mountPoint: mount.mountPoint, source: mount.source, network: isNetworkFileSystem(mount.fsType) };
}

// Linux's statfs(2) magic numbers of ext2-4, xfs, btrfs, tmpfs, overlayfs, zfs and f2fs: one statfs saying `dir` is on
// one of them spares reading and parsing the mount table (a hook's ~0.4 ms). Anything else (FUSE, IC_MOUNTINFO set) is false.
const LOCAL_MAGIC = new Set([0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0x2fc12fc1, 0xf2f52010]);
export function knownLocalFileSystem(dir: string, env: NodeJS.ProcessEnv): boolean {
  try {
    return !env.IC_MOUNTINFO && LOCAL_MAGIC.has(statfsSync(dir).type);
  } catch {
    return false;
  }
}

// IC_ALLOW_NETWORK_FS=1: the person knows every process runs on one host (so locks and shared memory agree).
export function networkFsAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.IC_ALLOW_NETWORK_FS === '1';
}
