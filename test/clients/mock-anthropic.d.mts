export interface AnthropicRequest {
  conversation: string | undefined;
  step: number;
  tools: string[];
  toolResults: { id: string; is_error: boolean; text: string }[];
  body: string;
}
export interface AnthropicMock {
  url: string;
  requests: AnthropicRequest[];
  close: () => Promise<void>;
}
export function startAnthropicMock(scripts: Record<string, unknown[]>): Promise<AnthropicMock>;
