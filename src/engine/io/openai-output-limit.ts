/**
 * How an OpenAI-compatible chat-completions service takes an output limit: OpenAI's own API refuses `max_tokens`
 * for its newer models and wants `max_completion_tokens`; the compatible services (DeepSeek, Qwen, Moonshot, Zhipu,
 * vLLM, llama.cpp, Ollama) all read `max_tokens`, and some refuse the newer field. Shared by the agent's model and
 * the garment tools' vision model, which talk to such services independently.
 */
export type OutputLimitField = { max_tokens: number } | { max_completion_tokens: number };

export function outputLimitField(baseURL: string, tokens: number): OutputLimitField {
  let host = '';
  try {
    host = new URL(baseURL).hostname.toLowerCase();
  } catch {}
  return host === 'api.openai.com' || host.endsWith('.openai.azure.com')
    ? { max_completion_tokens: tokens }
    : { max_tokens: tokens };
}
