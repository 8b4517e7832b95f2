// A scripted Anthropic Messages API for driving the real Claude Code offline (127.0.0.1 only).
// Each conversation is named by a marker `[[NAME]]` in its first user message; its script is a list of
// turns, and the turn to answer is the number of assistant messages already in the request. A turn is
// a list of tool calls ({name, input}) or a final text. Requests that offer no Edit tool (titles, other
// side requests) and unknown conversations get plain text.
import { startJsonServer } from './mock-server.mjs';

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((block) => (block.type === 'text' ? block.text : block.type === 'tool_result' ? textOf(block.content) : '')).join('\n');
}

function sse(res, events) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

let counter = 0;
function reply(res, model, blocks) {
  const id = `msg_${++counter}`;
  const events = [
    [
      'message_start',
      { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } },
    ],
  ];
  blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }]);
    } else {
      events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }]);
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }]);
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  const toolUse = blocks.some((block) => block.type === 'tool_use');
  events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: toolUse ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }]);
  events.push(['message_stop', { type: 'message_stop' }]);
  sse(res, events);
}

// A turn may be held back until the test says so: {until: (requests) => boolean, then: turn}. Checked every
// 25 ms for at most 60 s (then answered anyway, so a broken scenario fails instead of hanging).
function whenReady(turn, requests, answer) {
  if (turn === null || typeof turn !== 'object' || Array.isArray(turn)) return answer(turn);
  const giveUpAt = Date.now() + 60_000;
  const poll = () => (turn.until(requests) || Date.now() > giveUpAt ? answer(turn.then) : setTimeout(poll, 25));
  poll();
}

// scripts: { NAME: [turn, ...] } where turn = [{name, input}, ...] | string.
// Returns { url, requests, close }; `requests` records {conversation, step, toolResults, body} for assertions.
export async function startAnthropicMock(scripts) {
  const requests = [];
  const server = await startJsonServer((req, json, res) => {
    if (req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    if (!req.url.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const messages = Array.isArray(json.messages) ? json.messages : [];
    const tools = Array.isArray(json.tools) ? json.tools.map((tool) => tool.name) : [];
    // The last user message with a marker names the conversation (a resumed session adds a new one), and
    // the step counts the assistant messages after it.
    const markedAt = messages.findLastIndex((m) => m.role === 'user' && /\[\[[A-Za-z0-9_-]+\]\]/.test(textOf(m.content)));
    const marker = markedAt < 0 ? null : /\[\[([A-Za-z0-9_-]+)\]\]/.exec(textOf(messages[markedAt].content));
    const conversation = marker?.[1];
    const step = messages.slice(markedAt + 1).filter((m) => m.role === 'assistant').length;
    const toolResults = messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : []))
      .map((b) => ({ id: b.tool_use_id, is_error: Boolean(b.is_error), text: textOf(b.content) }));
    const script = conversation ? scripts[conversation] : undefined;
    if (!script || !tools.includes('Edit') || json.stream !== true) {
      if (json.stream === true) return reply(res, json.model, [{ type: 'text', text: 'ok' }]);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_${++counter}`,
          type: 'message',
          role: 'assistant',
          model: json.model,
          content: [{ type: 'text', text: 'ok' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      );
      return;
    }
    requests.push({ conversation, step, tools, toolResults, body: JSON.stringify(json) });
    const answer = (turn) => {
      if (typeof turn === 'string') return reply(res, json.model, [{ type: 'text', text: turn }]);
      reply(
        res,
        json.model,
        turn.map((call, i) => ({ type: 'tool_use', id: `toolu_${conversation}_${step}_${i}`, name: call.name, input: call.input })),
      );
    };
    whenReady(script[step] ?? 'done', requests, answer);
  });
  return { url: `${server.origin}`, requests, close: server.close };
}
