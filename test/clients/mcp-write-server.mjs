#!/usr/bin/env node
// A tiny stdio MCP server (JSON-RPC 2.0, one message per line) with one tool that writes a file, like the
// file-system servers agents use: `write_file {path, content}`. For the real-client suite only.
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const TOOLS = [
  {
    name: 'write_file',
    description: 'Create or overwrite a file with the given content.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
  },
];

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

function answer(request) {
  switch (request.method) {
    case 'initialize':
      return { protocolVersion: request.params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fs', version: '1.0.0' } };
    case 'tools/list':
      return { tools: TOOLS };
    case 'tools/call': {
      const { path, content } = request.params?.arguments ?? {};
      writeFileSync(path, content);
      return { content: [{ type: 'text', text: `wrote ${path}` }] };
    }
    default:
      return {};
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (request.id === undefined) return; // a notification
  try {
    send({ id: request.id, result: answer(request) });
  } catch (error) {
    send({ id: request.id, error: { code: -32000, message: String(error?.message ?? error) } });
  }
});
