import type { Socket, TcpSocketConnectOpts } from 'node:net';
import { net } from '../../../lazy-builtins';

// A connected stream socket's file descriptor, for SyncSocket to read and write synchronously. connect(2) is
// issued at once, before any event-loop turn: on a unix socket it has finished when this returns, on TCP it
// is under way (the first write waits for it). A connection that failed shows as an error of the first read
// or write (ECONNREFUSED, ENOENT, ENOTCONN): libuv reports it only to a callback no one waits for.
export interface StreamHandle {
  readonly fd: number;
  /** libuv's uv_stream_set_blocking: 0 when the descriptor now blocks. */
  setBlocking(on: boolean): number;
  close(): void;
}

// The stream is made from libuv's handle classes directly (what `net` itself builds a Socket on), since
// loading `net` and the streams under it costs a hook ~8 ms before its first byte to the server. These
// classes are a Node internal: if a Node release changes their shape, `net` is used instead, as before.
export function openUnixStream(path: string): StreamHandle {
  return orUndefined(() => rawUnixStream(path)) ?? netStream({ path });
}

// `address` is an IP literal.
export function openTcpStream(address: string, port: number, family: 4 | 6): StreamHandle {
  return orUndefined(() => rawTcpStream(address, port, family)) ?? netTcpStream(address, port, family);
}

// A handle class whose methods now take other arguments may throw instead of returning an error code.
function orUndefined<T>(make: () => T | undefined): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

interface RawStream {
  fd: number;
  setBlocking?(on: boolean): number;
  setNoDelay?(on: boolean): number;
  close(callback?: () => void): void;
}
interface RawConnectRequest {
  oncomplete: () => void;
}
interface PipeWrap {
  Pipe: new (type: number) => RawStream & { connect(request: RawConnectRequest, path: string): number };
  PipeConnectWrap: new () => RawConnectRequest;
  constants: { SOCKET: number };
}
interface TcpWrap {
  TCP: new (type: number) => RawStream & { connect(request: RawConnectRequest, address: string, port: number): number; connect6(request: RawConnectRequest, address: string, port: number): number };
  TCPConnectWrap: new () => RawConnectRequest;
  constants: { SOCKET: number };
}

// process.binding is deprecated only in documentation (and under --pending-deprecation, which would print
// a warning on a hook's stderr): the warning is held back for this one call.
function binding<T>(name: 'pipe_wrap' | 'tcp_wrap'): Partial<T> | undefined {
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true;
    return (process as unknown as { binding(name: string): Partial<T> }).binding(name);
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}

const ignoreCompletion = (): void => undefined;

function rawUnixStream(path: string): StreamHandle | undefined {
  const wrap = binding<PipeWrap>('pipe_wrap');
  if (typeof wrap?.Pipe !== 'function' || typeof wrap.PipeConnectWrap !== 'function' || typeof wrap.constants?.SOCKET !== 'number') return undefined;
  const handle = new wrap.Pipe(wrap.constants.SOCKET);
  const request = new wrap.PipeConnectWrap();
  request.oncomplete = ignoreCompletion;
  return adoptRaw(handle, () => handle.connect(request, path));
}

function rawTcpStream(address: string, port: number, family: 4 | 6): StreamHandle | undefined {
  const wrap = binding<TcpWrap>('tcp_wrap');
  if (typeof wrap?.TCP !== 'function' || typeof wrap.TCPConnectWrap !== 'function' || typeof wrap.constants?.SOCKET !== 'number') return undefined;
  const handle = new wrap.TCP(wrap.constants.SOCKET);
  const request = new wrap.TCPConnectWrap();
  request.oncomplete = ignoreCompletion;
  return adoptRaw(handle, () => {
    const status = family === 4 ? handle.connect(request, address, port) : handle.connect6(request, address, port);
    handle.setNoDelay?.(true);
    return status;
  });
}

// A connect call that returned an error or threw, or a handle without the expected parts: closed, and `net` is used.
function adoptRaw(handle: RawStream, connect: () => number): StreamHandle | undefined {
  let status: number | undefined;
  try {
    status = connect();
  } catch {
    status = undefined;
  }
  const { fd } = handle;
  if (status !== 0 || typeof fd !== 'number' || fd < 0 || typeof handle.setBlocking !== 'function') {
    handle.close(ignoreCompletion);
    return undefined;
  }
  return { fd, setBlocking: (on) => handle.setBlocking!(on), close: () => handle.close(ignoreCompletion) };
}

function netTcpStream(address: string, port: number, family: 4 | 6): StreamHandle {
  // net connects to a literal only on the next tick, but to a name it looks up at once: a lookup that
  // answers synchronously with the literal starts connect(2) now.
  return netStream({
    host: 'ic-postgres-address',
    port,
    family,
    autoSelectFamily: false,
    lookup: ((_name: string, _options: unknown, answer: (error: null, address: string, family: number) => void) => answer(null, address, family)) as TcpSocketConnectOpts['lookup'],
  });
}

// The same through a `net` Socket, paused so libuv never reads it (loaded on first use, see above).
function netStream(options: { path: string } | TcpSocketConnectOpts): StreamHandle {
  const socket: Socket = new (net().Socket)();
  socket.on('error', () => undefined); // errors surface through the descriptor's reads and writes
  socket.connect(options);
  if (!('path' in options)) socket.setNoDelay(true);
  socket.pause();
  const handle = (socket as unknown as { _handle?: { fd?: number; setBlocking?: (on: boolean) => number } })._handle;
  const fd = handle?.fd;
  if (typeof fd !== 'number' || fd < 0) {
    socket.destroy();
    throw new Error('could not open a socket');
  }
  return { fd, setBlocking: (on) => handle?.setBlocking?.(on) ?? -1, close: () => socket.destroy() };
}
