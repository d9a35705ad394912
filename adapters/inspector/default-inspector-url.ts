/**
 * The URL `@statelyai/inspect` connects to, and its relay server listens on, by default. Apart
 * from the inspector so that `run`'s flags can name it without loading the inspector (ws,
 * @statelyai/inspect) on every run.
 */
export const DEFAULT_INSPECTOR_URL = "ws://localhost:8080";
