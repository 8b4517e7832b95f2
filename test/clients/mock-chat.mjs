// A scripted OpenAI chat/completions API (streamed) for driving the real Copilot CLI and OpenCode offline
// (127.0.0.1 only). Each conversation is named by a marker `[[NAME]]` in a user message; the turn to
// answer is the number of `tool` messages already in the request. A turn is a list of calls {name, args}
// or a final text, or {until, then} (see whenReady). Requests without tools (titles, summaries) get a plain text answer.
import { startJsonServer, whenReady } from './mock-server.mjs';

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => part.text ?? '').join('\n');
}

let counter = 0;
function sse(res, turn, conversation, step) {
  const id = `chatcmpl-${++counter}`;
  const chunk = (delta, finish_reason = null) => ({ id, object: 'chat.completion.chunk', created: 1, model: 'mock-model', choices: [{ index: 0, delta, finish_reason }] });
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  if (typeof turn === 'string') {
    send(chunk({ role: 'assistant', content: turn }));
    send(chunk({}, 'stop'));
  } else {
    const tool_calls = turn.map((call, index) => ({ index, id: `call_${conversation}_${step}_${index}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }));
    send(chunk({ role: 'assistant', content: null, tool_calls }));
    send(chunk({}, 'tool_calls'));
  }
  send({ id, object: 'chat.completion.chunk', created: 1, model: 'mock-model', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  res.write('data: [DONE]\n\n');
  res.end();
}

// scripts: { NAME: [turn, ...] }. Returns { url, requests, close }; `requests` records
// {conversation, step, outputs, tools}: outputs are the tool results the client sent back.
export async function startChatMock(scripts) {
  const requests = [];
  const server = await startJsonServer((req, json, res) => {
    if (req.method === 'GET' && req.url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'mock-model', object: 'model', created: 1, owned_by: 'mock' }] }));
      return;
    }
    if (!req.url.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const messages = Array.isArray(json.messages) ? json.messages : [];
    const tools = Array.isArray(json.tools) ? json.tools.map((t) => t.function?.name).filter(Boolean) : [];
    const marker = messages
      .filter((m) => m.role === 'user')
      .map((m) => /\[\[([A-Za-z0-9_-]+)\]\]/.exec(textOf(m.content)))
      .find(Boolean);
    const conversation = tools.length > 0 ? marker?.[1] : undefined;
    const outputs = messages.filter((m) => m.role === 'tool').map((m) => ({ call_id: m.tool_call_id, output: textOf(m.content) }));
    const step = outputs.length;
    requests.push({ conversation, step, outputs, tools });
    const script = conversation ? scripts[conversation] : undefined;
    if (json.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${++counter}`,
          object: 'chat.completion',
          created: 1,
          model: 'mock-model',
          choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
      return;
    }
    whenReady(script?.[step] ?? 'done', requests, (turn) => sse(res, turn, conversation, step));
  });
  return { url: `${server.origin}/v1`, requests, close: server.close };
}
