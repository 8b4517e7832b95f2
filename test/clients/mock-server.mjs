// The HTTP part both mock model servers share: read a request's JSON body (an empty or broken body reads
// as {}), hand it to the API's own handler, listen on an ephemeral port of 127.0.0.1 only.
import { createServer } from 'node:http';

export async function startJsonServer(handle) {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let json = {};
      try {
        json = JSON.parse(body || '{}');
      } catch {}
      handle(req, json, res);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

// A turn may be held back until the test says so: {until: (requests) => boolean, then: turn}. Checked every
// 25 ms for at most 5 minutes (then answered anyway, so a broken scenario fails instead of hanging); a
// held OpenCode session waits through a whole other OpenCode run, which can take minutes on a busy machine.
export function whenReady(turn, requests, answer) {
  if (turn === null || typeof turn !== 'object' || Array.isArray(turn)) return answer(turn);
  const giveUpAt = Date.now() + 300_000;
  const poll = () => (turn.until(requests) || Date.now() > giveUpAt ? answer(turn.then) : setTimeout(poll, 25));
  poll();
}
