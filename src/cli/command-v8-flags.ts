// V8's flags for every command but `serve`, which src/main.ts sets before anything compiles WebAssembly (its comment
// says why). A module of its own so that bench/pglite-floor.mjs starts PGlite under the same flags.
export const COMMAND_V8_FLAGS = '--liftoff-only --wasm-tiering-budget=1000000000 --wasm-tier-up-filter=2147483647';
