// Spans for the statements of the embedded database (PGlite), which no OpenTelemetry instrumentation knows (pg's
// covers PostgreSQL). start-tracing.ts sets the tracer when traces are exported; otherwise it stays null, nothing is
// wrapped and nothing of OpenTelemetry is loaded: this file imports none of it.

/** Runs `run`, one database statement, inside a span that names `statement`. */
export type StatementTracer = <T>(statement: string, run: () => Promise<T>) => Promise<T>;

let current: StatementTracer | null = null;

export function setStatementTracer(tracer: StatementTracer | null): void {
  current = tracer;
}

/** The tracer of a process that exports traces, else null. */
export function statementTracer(): StatementTracer | null {
  return current;
}
