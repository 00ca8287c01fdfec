/** The model the analyses ask (SVC_AI_* settings, docs/ai-fixes.md); analyses are heuristic without one. */
export interface AiSettings {
  /** An OpenAI-compatible API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1` (Ollama). */
  baseUrl: string;
  /** Sent as a bearer token; local servers (Ollama, vLLM) need none. */
  apiKey?: string;
  /** Model name (Azure OpenAI: the deployment name). */
  model: string;
  /** How long one model call may take, ms. */
  timeoutMs?: number;
}

export const DEFAULT_AI_TIMEOUT_MS = 120_000;
