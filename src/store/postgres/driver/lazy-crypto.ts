import type * as NodeCrypto from 'node:crypto';

// Stands in for node-postgres's lib/crypto/utils.js in the driver's bundle (scripts/build.mjs): the same
// functions, on node:crypto loaded at first use. pg's own module loads all of node:crypto and its WebCrypto
// when pg is loaded, though only a password login (md5, SCRAM) uses them: a connection over a trusted unix
// socket or a pooler that logs in for it never does.

let loaded: typeof NodeCrypto | undefined;
function crypto(): typeof NodeCrypto {
  loaded ??= require('node:crypto') as typeof NodeCrypto;
  return loaded;
}

export function randomBytes(length: number): Buffer {
  return crypto().randomBytes(length);
}

export async function md5(text: string | Buffer): Promise<string> {
  return crypto().createHash('md5').update(text).digest('hex');
}

// AuthenticationMD5Password: 'md5' + md5(md5(password + user) + salt).
export async function postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string> {
  const inner = await md5(password + user);
  return `md5${await md5(Buffer.concat([Buffer.from(inner), salt]))}`;
}

export async function sha256(data: Buffer | ArrayBuffer): Promise<Buffer> {
  return crypto()
    .createHash('sha256')
    .update(Buffer.from(data as ArrayBuffer))
    .digest();
}

// A certificate's digest for SCRAM channel binding: WebCrypto's names (SHA-256, SHA-384, SHA-512).
export async function hashByName(name: string, data: Buffer): Promise<Buffer> {
  return crypto().createHash(name.replace('-', '').toLowerCase()).update(data).digest();
}

export async function hmacSha256(key: Buffer | ArrayBuffer, message: string): Promise<Buffer> {
  return crypto()
    .createHmac('sha256', Buffer.from(key as ArrayBuffer))
    .update(message)
    .digest();
}

export async function deriveKey(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return crypto().pbkdf2Sync(password, salt, iterations, 32, 'sha256');
}
