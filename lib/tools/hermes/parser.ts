/** Reading Hermes-style calls: the JSON envelope between the tags, any whitespace around it. */
import type { CallSyntax } from "../layout-parser.js";
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from "./markers.js";

export const HERMES_CALL_SYNTAX: CallSyntax = {
  kind: "envelope", open: `${TOOL_CALL_OPEN}\n`, close: `\n${TOOL_CALL_CLOSE}`, argumentKeys: ["arguments"],
};
