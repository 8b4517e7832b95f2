export interface ChatRequest {
  conversation: string | undefined;
  step: number;
  outputs: { call_id: string; output: string }[];
  tools: string[];
}
export interface ChatMock {
  url: string;
  requests: ChatRequest[];
  close: () => Promise<void>;
}
export function startChatMock(scripts: Record<string, unknown[]>): Promise<ChatMock>;
