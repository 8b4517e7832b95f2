// A scripted Gemini API for driving the real Gemini CLI offline (127.0.0.1 only). Each conversation is
// named by a marker `[[NAME]]` in its first user text; the turn to answer is the number of functionResponse
// parts already in the request's contents. A turn is a list of calls {name, args} (write_file, replace,
// run_shell_command, …) or a final text, or {until, then} (see whenReady). Answers `:streamGenerateContent?alt=sse` as SSE, and the model
// routing side call (`:generateContent`) with a plain text choice.
import { startJsonServer, whenReady } from './mock-server.mjs';

const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

function partsOf(turn) {
  return typeof turn === 'string' ? [{ text: turn }] : turn.map((call) => ({ functionCall: { name: call.name, args: call.args } }));
}

// scripts: { NAME: [turn, ...] }. Returns { url, requests, close }; `requests` records
// {conversation, step, outputs}: outputs are the function responses Gemini CLI sent back (as JSON text).
export async function startGeminiMock(scripts) {
  const requests = [];
  const server = await startJsonServer((req, json, res) => {
    const contents = Array.isArray(json.contents) ? json.contents : [];
    const parts = contents.flatMap((c) => (Array.isArray(c.parts) ? c.parts : []));
    if (!req.url.includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const choice = JSON.stringify({ reasoning: 'mock', model_choice: 'flash', complexity_reasoning: 'mock', complexity_score: 1 });
      res.end(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: choice }] }, finishReason: 'STOP', index: 0 }], usageMetadata: usage }));
      return;
    }
    const marker = parts.map((p) => (typeof p.text === 'string' ? /\[\[([A-Za-z0-9_-]+)\]\]/.exec(p.text) : null)).find(Boolean);
    const conversation = marker?.[1];
    const outputs = parts.filter((p) => p.functionResponse).map((p) => ({ name: p.functionResponse.name, output: JSON.stringify(p.functionResponse.response) }));
    const step = outputs.length;
    requests.push({ conversation, step, outputs });
    const script = conversation ? scripts[conversation] : undefined;
    whenReady(script?.[step] ?? 'done', requests, (turn) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: partsOf(turn) }, finishReason: 'STOP', index: 0 }], usageMetadata: usage })}\n\n`);
      res.end();
    });
  });
  return { url: server.origin, requests, close: server.close };
}
