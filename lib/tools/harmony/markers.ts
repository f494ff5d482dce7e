/** OpenAI harmony's markers (special tokens of o200k_harmony), as gpt-oss writes them. */
export const START = "<|start|>";
export const END = "<|end|>";
export const MESSAGE = "<|message|>";
export const CHANNEL = "<|channel|>";
export const CONSTRAIN = "<|constrain|>";
export const RETURN = "<|return|>";
export const CALL = "<|call|>";
/** Text-bearing markers (written by the grammar). */
export const HARMONY_MARKERS: readonly string[] = [START, END, MESSAGE, CHANNEL, CONSTRAIN];
/** What ends generation: a final answer, a tool call, or a message. */
export const HARMONY_STOPS: readonly string[] = [RETURN, CALL];
/** The header that starts the next assistant message after one ends. */
export const NEXT_MESSAGE = `${END}${START}assistant`;
export const ANALYSIS = `${CHANNEL}analysis${MESSAGE}`;
export const FINAL = `${CHANNEL}final${MESSAGE}`;
