/**
 * Per-tool prompts P(x) (paper, Appendix A.2, abridged to one example each so that prompt + text fit a
 * small model's context). P(x) ends with "Output: "; the text x follows it, and the LM's probability of
 * " [" at each position of x is p_i. Each prompt contains x itself ("Input: x"). A tool's own prompt lives in its
 * folder (tools/<name>/index.ts), built with `paperPrompt`.
 */
export interface ToolPrompt {
  tool: string;
  /**
   * P(x) in decreasing length: the paper-style prompt with an example, a one-line instruction, and ''
   * (no prompt: the LM's own p(" [") on the bare text). Positions use the first variant that leaves room
   * for a useful window in the model's context (see positions.ts `choosePrompt`).
   */
  variants: readonly ((input: string) => string)[];
}

const oneLine = (input: string) => input.replace(/\s+/g, ' ');

/** The paper's prompt shape: instruction, one example (input, output with the call), then the text. */
export const paperPrompt = (tool: string, instruction: string, example: { input: string; output: string }): ToolPrompt => ({
  tool,
  variants: [
    (input) => `${instruction}\n\nInput: ${example.input}\nOutput: ${example.output}\n\nInput: ${oneLine(input)}\nOutput: `,
    (input) => `Add ${tool} calls to the text. Input: ${oneLine(input)}\nOutput: `,
    () => '',
  ],
});
