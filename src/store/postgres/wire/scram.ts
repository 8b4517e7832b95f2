import { crypto } from '../../../lazy-builtins';

// SCRAM-SHA-256 (RFC 7677) as PostgreSQL runs it: no channel binding (ic's built-in driver speaks no TLS), the
// user name left empty in the messages (the server takes it from the startup packet, as libpq does).
export const SCRAM_MECHANISM = 'SCRAM-SHA-256';

export interface ScramClient {
  firstMessage: string;
  // The answer to the server's first message, and what its final message must say.
  respond(serverFirst: string): { finalMessage: string; expectedServerFinal: string };
}

const hmac = (key: Buffer, text: string): Buffer => crypto().createHmac('sha256', key).update(text).digest();

function attributes(message: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return out;
}

// `user` and `clientNonce` are for tests (RFC 7677's example names its user); PostgreSQL's is empty.
export function scramClient(password: string, { user = '', clientNonce = crypto().randomBytes(18).toString('base64') } = {}): ScramClient {
  const firstBare = `n=${user},r=${clientNonce}`;
  return {
    firstMessage: `n,,${firstBare}`,
    respond(serverFirst) {
      const fields = attributes(serverFirst);
      const nonce = fields.get('r');
      const salt = fields.get('s');
      const iterations = Number(fields.get('i'));
      if (!nonce || !nonce.startsWith(clientNonce) || nonce.length === clientNonce.length) throw new Error('the server answered SCRAM with a nonce that is not ours');
      if (!salt || !Number.isSafeInteger(iterations) || iterations < 1) throw new Error('the server sent a malformed SCRAM challenge');
      const salted = crypto().pbkdf2Sync(password.normalize('NFKC'), Buffer.from(salt, 'base64'), iterations, 32, 'sha256');
      const clientKey = hmac(salted, 'Client Key');
      const storedKey = crypto().createHash('sha256').update(clientKey).digest();
      const withoutProof = `c=biws,r=${nonce}`;
      const authMessage = `${firstBare},${serverFirst},${withoutProof}`;
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.from(clientKey.map((byte, index) => byte ^ signature[index]!));
      const serverSignature = hmac(hmac(salted, 'Server Key'), authMessage);
      return { finalMessage: `${withoutProof},p=${proof.toString('base64')}`, expectedServerFinal: `v=${serverSignature.toString('base64')}` };
    },
  };
}

// The server proves it knew the password too: a server that did not would be an impostor.
export function verifyServerFinal(serverFinal: string, expected: string): boolean {
  const given = Buffer.from(serverFinal.split(',').find((part) => part.startsWith('v=')) ?? '');
  const wanted = Buffer.from(expected);
  return given.length === wanted.length && crypto().timingSafeEqual(given, wanted);
}

// The md5 method: "md5" + md5(md5(password + user) + salt), in hex.
export function md5Password(user: string, password: string, salt: Buffer): string {
  const inner = crypto()
    .createHash('md5')
    .update(password + user)
    .digest('hex');
  return `md5${crypto()
    .createHash('md5')
    .update(Buffer.concat([Buffer.from(inner), salt]))
    .digest('hex')}`;
}
