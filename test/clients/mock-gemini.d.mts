export interface GeminiRequest {
  conversation: string | undefined;
  step: number;
  outputs: { name: string; output: string }[];
}
export interface GeminiMock {
  url: string;
  requests: GeminiRequest[];
  close: () => Promise<void>;
}
export function startGeminiMock(scripts: Record<string, unknown[]>): Promise<GeminiMock>;
