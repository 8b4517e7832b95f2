// A scripted OpenAI Responses API for driving the real Codex offline (127.0.0.1 only). Each conversation
// is named by a marker `[[NAME]]` in its first user message; the turn to answer is the number of tool
// outputs (function_call_output / custom_tool_call_output) already in the request's input. A turn is a
// list of items — {patch} (an apply_patch custom tool call), {shell} (an exec_command function call, with
// any further `args` such as yield_time_ms) or {tool, args} (any function call; `args` may be a function of
// the request, e.g. to poll the session id Codex gave in its last output) — or a final text, or a function
// returning a promise of the final text (to hold the session open).
import { startJsonServer } from './mock-server.mjs';

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => part.text ?? '').join('\n');
}

let counter = 0;
function item(call, request, index) {
  const call_id = `call_${request.conversation}_${request.step}_${index}`;
  if (call.patch !== undefined) return { type: 'custom_tool_call', id: `ctc_${++counter}`, status: 'completed', call_id, name: 'apply_patch', input: call.patch };
  const [name, args] = call.tool !== undefined ? [call.tool, typeof call.args === 'function' ? call.args(request) : call.args] : ['exec_command', { cmd: call.shell, ...call.args }];
  return { type: 'function_call', id: `fc_${++counter}`, status: 'completed', call_id, name, arguments: JSON.stringify(args) };
}

function message(text) {
  return { type: 'message', id: `msg_${++counter}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
}

function sse(res, items) {
  const id = `resp_${++counter}`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
  send({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } });
  items.forEach((output, output_index) => send({ type: 'response.output_item.done', output_index, item: output }));
  send({
    type: 'response.completed',
    response: {
      id,
      object: 'response',
      status: 'completed',
      output: items,
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
    },
  });
  res.end();
}

// A turn may be held back until the test says so: {until: (requests) => boolean, then: turn}, checked every
// 25 ms for at most 60 s (then answered anyway, so a broken scenario fails instead of hanging).
function whenReady(turn, requests, answer) {
  if (turn === null || typeof turn !== 'object' || Array.isArray(turn)) return answer(turn);
  const giveUpAt = Date.now() + 60_000;
  const poll = () => (turn.until(requests) || Date.now() > giveUpAt ? answer(turn.then) : setTimeout(poll, 25));
  poll();
}

// scripts: { NAME: [turn, ...] }. Returns { url, requests, close }; `requests` records
// {conversation, step, outputs, body} where outputs are the tool outputs Codex sent back and body the raw request.
export async function startOpenAiMock(scripts) {
  const requests = [];
  const server = await startJsonServer((req, json, res) => {
    if (!req.url.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const input = Array.isArray(json.input) ? json.input : [];
    const users = input.filter((i) => i.type === 'message' && i.role === 'user').map((i) => textOf(i.content));
    const marker = users.map((text) => /\[\[([A-Za-z0-9_-]+)\]\]/.exec(text)).find(Boolean);
    const conversation = marker?.[1];
    const outputs = input
      .filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
      .map((i) => ({ call_id: i.call_id, output: typeof i.output === 'string' ? i.output : JSON.stringify(i.output) }));
    const step = outputs.length;
    const request = { conversation, step, outputs, body: JSON.stringify(json) };
    requests.push(request);
    const script = conversation ? scripts[conversation] : undefined;
    const turn = script?.[step] ?? 'done';
    if (typeof turn === 'function') return turn().then((text) => sse(res, [message(text)]));
    whenReady(turn, requests, (ready) => sse(res, typeof ready === 'string' ? [message(ready)] : ready.map((call, index) => item(call, request, index))));
  });
  return { url: `${server.origin}/v1`, requests, close: server.close };
}
