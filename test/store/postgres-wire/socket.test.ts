import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SyncSocket } from '../../../src/store/postgres/wire/socket';

// The built-in driver's socket against a real peer: an echo server in another process (this one blocks in
// readSync, so the peer cannot share its event loop), over a unix socket and loopback TCP, made from libuv's
// handles and, when those are not there (a Node release that changed them), through `net`.
describe('SyncSocket', () => {
  let dir: string;
  let server: ChildProcess;
  let port: number;
  const socketPath = () => join(dir, 'echo.sock');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ic-socket-'));
    const echo = `const net = require('net');
const serve = (s) => s.on('data', (d) => s.write(d));
net.createServer(serve).listen(${JSON.stringify(join(dir, 'echo.sock'))}, () => {
  const tcp = net.createServer(serve).listen(0, '127.0.0.1', () => process.stdout.write(tcp.address().port + '\\n'));
});`;
    server = spawn(process.execPath, ['-e', echo], { stdio: ['ignore', 'pipe', 'inherit'] });
    port = await new Promise<number>((resolve) => server.stdout!.once('data', (data: Buffer) => resolve(Number(String(data).trim()))));
  });
  afterAll(() => {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => vi.restoreAllMocks());

  const soon = () => Date.now() + 5_000;
  function roundTrip(socket: SyncSocket, text: string): string {
    socket.write(Buffer.from(text), soon());
    let got = '';
    while (got.length < text.length) got += String(socket.read(soon()));
    return got;
  }

  // A Node release whose handle classes changed shape: gone, or taking other arguments (their connect throws).
  class ChangedHandle {
    fd = -1;
    connect(): number {
      throw new TypeError('connect takes other arguments now');
    }
    connect6(): number {
      return this.connect();
    }
    setBlocking(): number {
      return 0;
    }
    close(): void {}
  }
  const changed = { Pipe: ChangedHandle, TCP: ChangedHandle, PipeConnectWrap: Object, TCPConnectWrap: Object, constants: { SOCKET: 0 } };

  for (const how of ['libuv handles', 'net, without the handle classes', 'net, the handle classes changed'] as const) {
    it(`over a unix socket and loopback TCP, before and after it blocks (${how})`, () => {
      const binding = vi.spyOn(process as unknown as { binding: (name: string) => object }, 'binding');
      if (how === 'net, without the handle classes') binding.mockImplementation(() => ({}));
      if (how === 'net, the handle classes changed') binding.mockImplementation(() => changed);
      for (const socket of [SyncSocket.connectUnix(socketPath()), SyncSocket.connectTcp('127.0.0.1', port, 4)]) {
        try {
          expect(roundTrip(socket, 'startup')).toBe('startup');
          socket.block();
          expect(roundTrip(socket, 'x'.repeat(60_000))).toHaveLength(60_000);
        } finally {
          socket.close();
        }
      }
    });
  }

  it('a socket no server listens on fails at its first write, by its errno', () => {
    const socket = SyncSocket.connectUnix(join(dir, 'nobody.sock'));
    try {
      expect(() => socket.write(Buffer.from('hello'), soon())).toThrow(expect.objectContaining({ code: expect.stringMatching(/^(ENOENT|ECONNREFUSED|ENOTCONN|EPIPE)$/) }));
    } finally {
      socket.close();
    }
  });
});
