/**
 * Per-tool prompts P(x) (paper, Appendix A.2, abridged to one example each so that prompt + text fit a
 * small model's context). P(x) ends with "Output: "; the text x follows it, and the LM's probability of
 * " [" at each position of x is p_i. Each prompt contains x itself ("Input: x").
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

const paperPrompt = (tool: string, instruction: string, example: { input: string; output: string }): ToolPrompt => ({
  tool,
  variants: [
    (input) => `${instruction}\n\nInput: ${example.input}\nOutput: ${example.output}\n\nInput: ${oneLine(input)}\nOutput: `,
    (input) => `Add ${tool} calls to the text. Input: ${oneLine(input)}\nOutput: `,
    () => '',
  ],
});

export const DEFAULT_PROMPTS: Readonly<Record<string, ToolPrompt>> = {
  Calculator: paperPrompt(
    'Calculator',
    'Your task is to add calls to a Calculator API to a piece of text. The calls should help you get information ' +
      'required to complete the text. You can call the API by writing "[Calculator(expression)]" where "expression" ' +
      'is the expression to be computed.',
    {
      input: 'Out of 1400 participants, 400 (or 29%) passed the test.',
      output: 'Out of 1400 participants, 400 (or [Calculator(400 / 1400)] 29%) passed the test.',
    },
  ),
  QA: paperPrompt(
    'QA',
    'Your task is to add calls to a Question Answering API to a piece of text. The questions should help you get ' +
      'information required to complete the text. You can call the API by writing "[QA(question)]" where "question" ' +
      'is the question you want to ask.',
    {
      input: 'Harrisburg is the capital of Pennsylvania.',
      output: '[QA("What is the capital of Pennsylvania?")] Harrisburg is the capital of Pennsylvania.',
    },
  ),
  Calendar: paperPrompt(
    'Calendar',
    'Your task is to add calls to a Calendar API to a piece of text. The API calls should help you get information ' +
      'required to complete the text. You can call the API by writing "[Calendar()]".',
    {
      input: 'Today is the first Friday of the year.',
      output: 'Today is the first [Calendar()] Friday of the year.',
    },
  ),
  Translate: paperPrompt(
    'Translate',
    'Your task is to complete a given piece of text by using a Machine Translation API. You can do so by writing ' +
      '"[Translate(text)]" where text is the text to be translated into English.',
    {
      input: 'He said "la tortuga es verde", the turtle is green.',
      output: 'He said "la tortuga es verde", [Translate("la tortuga es verde")] the turtle is green.',
    },
  ),
};
