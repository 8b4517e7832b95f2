export interface OpenAiRequest {
  conversation: string | undefined;
  step: number;
  outputs: { call_id: string; output: string }[];
  body: string;
}
export interface OpenAiMock {
  url: string;
  requests: OpenAiRequest[];
  close: () => Promise<void>;
}
export function startOpenAiMock(scripts: Record<string, unknown[]>): Promise<OpenAiMock>;
