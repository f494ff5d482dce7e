/** The shape every CLI command module exports. */
export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
}

export interface CliCommand {
  /** One line for `tagmask --help`. */
  summary: string;
  /** Full usage text for `tagmask COMMAND --help`. */
  usage: string;
  /** Runs the command; resolves to the process exit code. */
  run(argv: string[], io: CliIO): Promise<number>;
}
