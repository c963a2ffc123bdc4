/**
 * A document as a chat-format finetuning record (TRL's conversational language-modelling type with a `tools` column;
 * OpenAI chat finetuning's `messages` + `tools`):
 *
 *   system     CHAT_SYSTEM_PROMPT (absent with `system: null`)
 *   assistant  the text before the first call, with tool_calls: [{id, type: "function", function: {name, arguments}}]
 *   tool       the call's result, tool_call_id = the call's id
 *   assistant  the text up to the next call (and that call), … the rest of the text (no tool_calls)
 *
 * `arguments` is a JSON string (OpenAI's shape; chat templates that want an object parse it). There is no user turn:
 * the document is the model's own text and nothing asked for it, so an empty user message would only teach the
 * model to answer nothing; the system message says what the assistant turns are (and is where chat templates put
 * the tools). Text before a call keeps its trailing characters exactly, so concatenating the assistant contents
 * gives back the original document.
 */
import type { OpenAiTool } from '../tools/definitions.ts';
import type { ExportDoc } from './dataset-record.ts';

export const CHAT_SYSTEM_PROMPT = 'Continue the document. Call a tool where its result helps write the next words.';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatRecord {
  id: string;
  messages: ChatMessage[];
  /** The OpenAI function definitions of the run's tools (their JSON Schemas): every tool the model could have called. */
  tools: OpenAiTool[];
}

/** `tools`: the definitions of the run's tools (`openAiTools(specs)`), the same in every record. */
export function chatRecord(doc: ExportDoc, tools: readonly OpenAiTool[], system: string | null = CHAT_SYSTEM_PROMPT): ChatRecord {
  const messages: ChatMessage[] = system === null ? [] : [{ role: 'system', content: system }];
  let from = 0;
  doc.calls.forEach((c, i) => {
    const id = `call_${i}`;
    messages.push({ role: 'assistant', content: doc.original.slice(from, c.at), tool_calls: [{ id, type: 'function', function: { name: c.tool, arguments: JSON.stringify(c.arguments) } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: c.result });
    from = c.at;
  });
  messages.push({ role: 'assistant', content: doc.original.slice(from) });
  return { id: doc.id, messages, tools: [...tools] };
}
